#include "certificate_seal.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdio>
#include <cstdlib>

#include "mxconform/error.h"
#include "sha256.h"

namespace mxconform::certify {
namespace {

constexpr const char* kSealPrefix = "integrity: ";
constexpr const char* kPlainMethod = "sha256";
constexpr const char* kKeyedMethod = "hmac-sha256";

// The key from the environment; empty when unset.
std::string key() {
  const char* value = std::getenv(kCertificateKeyVariable);
  return value == nullptr ? std::string() : std::string(value);
}

std::string hex(const unsigned char* bytes, unsigned size) {
  std::string out;
  char digits[3];
  for (unsigned i = 0; i < size; ++i) {
    std::snprintf(digits, sizeof digits, "%02x", bytes[i]);
    out += digits;
  }
  return out;
}

std::string plain_digest(const std::string& body) {
  Sha256 digest;
  digest.update(body.data(), body.size());
  return digest.hex_digest();
}

std::string keyed_digest(const std::string& secret, const std::string& body) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned size = 0;
  if (::HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
             reinterpret_cast<const unsigned char*>(body.data()), body.size(), mac, &size) == nullptr) {
    throw Error("certificate seal: HMAC-SHA-256 failed");
  }
  return hex(mac, size);
}

}  // namespace

std::string sealed(const std::string& body) {
  const std::string secret = key();
  const std::string line = secret.empty() ? std::string(kPlainMethod) + " " + plain_digest(body)
                                          : std::string(kKeyedMethod) + " " + keyed_digest(secret, body);
  return body + kSealPrefix + line + "\n";
}

std::string unsealed(const std::string& text) {
  const std::string prefix = std::string("\n") + kSealPrefix;
  const std::size_t at = text.rfind(prefix);
  if (at == std::string::npos) {
    throw Error("no 'integrity:' line: the certificate was not written by this mxconform, or its seal was removed");
  }
  const std::string body = text.substr(0, at + 1);
  std::string line = text.substr(at + prefix.size());
  if (!line.empty() && line.back() == '\n') line.pop_back();
  const std::size_t blank = line.find(' ');
  const std::string method = line.substr(0, blank);
  const std::string stated = blank == std::string::npos ? std::string() : line.substr(blank + 1);
  const std::string secret = key();
  if (method == kKeyedMethod) {
    if (secret.empty()) {
      throw Error(std::string("sealed with a key (hmac-sha256): set ") + kCertificateKeyVariable +
                  " to the key it was written with");
    }
    if (stated != keyed_digest(secret, body)) {
      throw Error(std::string("its integrity line does not match its content under the key in ") +
                  kCertificateKeyVariable + ": it was changed after it was written, or sealed with another key");
    }
    return body;
  }
  if (method != kPlainMethod) throw Error("integrity method is not sha256 or hmac-sha256");
  if (!secret.empty()) {
    throw Error(std::string("sealed without a key (sha256), but ") + kCertificateKeyVariable +
                " is set: only certificates sealed with that key are read");
  }
  if (stated != plain_digest(body)) {
    throw Error("its integrity line does not match its content: it was changed after mxconform wrote it");
  }
  return body;
}

}  // namespace mxconform::certify
