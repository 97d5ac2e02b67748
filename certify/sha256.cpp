#include "sha256.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <vector>

#include <openssl/evp.h>

#include "mxconform/error.h"

namespace mxconform::certify {
namespace {

// An OpenSSL call that reports failure (0) is an internal error, not bad input.
void check(int status, const char* call) {
  if (status != 1) throw std::runtime_error(std::string("SHA-256: OpenSSL ") + call + " failed");
}

}  // namespace

Sha256::Sha256() : context_(EVP_MD_CTX_new()) {
  if (context_ == nullptr) throw std::bad_alloc();
  try {
    check(EVP_DigestInit_ex(context_, EVP_sha256(), nullptr), "EVP_DigestInit_ex");
  } catch (...) {
    EVP_MD_CTX_free(context_);
    throw;
  }
}

Sha256::~Sha256() { EVP_MD_CTX_free(context_); }

void Sha256::update(const void* data, std::size_t size) {
  if (spent_) throw std::logic_error("Sha256::update after hex_digest");
  check(EVP_DigestUpdate(context_, data, size), "EVP_DigestUpdate");
}

std::string Sha256::hex_digest() {
  if (spent_) throw std::logic_error("Sha256::hex_digest called twice");
  spent_ = true;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  check(EVP_DigestFinal_ex(context_, digest, &size), "EVP_DigestFinal_ex");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * size);
  for (unsigned int i = 0; i < size; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0xF];
  }
  return out;
}

std::string sha256_file(const std::string& path) {
  const auto fail = [&path](int error) {
    return Error(path + ": cannot read for its SHA-256: " + std::strerror(error));
  };
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw fail(errno);
  Sha256 hash;
  std::vector<unsigned char> chunk(std::size_t{1} << 16);
  for (;;) {
    errno = 0;
    const std::size_t got = std::fread(chunk.data(), 1, chunk.size(), file.get());
    hash.update(chunk.data(), got);
    if (got < chunk.size()) {
      // A directory opens, then fails here (EISDIR): an error, never the digest of no bytes.
      if (std::ferror(file.get())) throw fail(errno != 0 ? errno : EIO);
      break;
    }
  }
  return hash.hex_digest();
}

}  // namespace mxconform::certify
