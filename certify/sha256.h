#pragma once
// SHA-256 (FIPS 180-4) for the certificate's file digests, computed by OpenSSL's libcrypto
// (EVP_Digest*). Callers see no OpenSSL header.
#include <cstddef>
#include <string>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX

namespace mxconform::certify {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  // Adds `size` bytes (any size, 0 included) to the message. Throws std::logic_error once spent.
  void update(const void* data, std::size_t size);
  // The digest as 64 lowercase hex digits; the object is spent afterwards (update and
  // hex_digest then throw std::logic_error).
  std::string hex_digest();

 private:
  evp_md_ctx_st* context_;
  bool spent_ = false;
};

// The digest of a file's bytes; throws Error naming the file and the reason when it cannot be
// opened or read to its end (a directory, a missing or unreadable file).
std::string sha256_file(const std::string& path);

}  // namespace mxconform::certify
