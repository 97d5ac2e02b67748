#pragma once
// The seal on every certificate mxconform writes: its last line, `integrity: <method> <hex>`, a
// digest of every byte before it. Reading a certificate (merge, the failure report of grade)
// refuses one whose bytes changed after it was written, or whose seal is missing.
//
// Without a key the method is `sha256`: it catches a certificate edited by hand or by a script,
// not a forger who recomputes the digest. With the environment variable MXCONFORM_CERTIFICATE_KEY
// set (a CI secret, say), the method is `hmac-sha256` under that key, and only certificates
// sealed with the same key are read: a backend under test that never sees the key cannot forge
// one.
#include <string>

namespace mxconform::certify {

inline constexpr const char* kCertificateKeyVariable = "MXCONFORM_CERTIFICATE_KEY";

// `body` (YAML ending in a newline) followed by its seal line.
std::string sealed(const std::string& body);

// Checks the seal of `text`, a whole certificate file, and returns the bytes before it. Throws
// Error naming the rule broken: no seal line, an unknown method, a key expected or missing, or a
// digest that does not match.
std::string unsealed(const std::string& text);

}  // namespace mxconform::certify
