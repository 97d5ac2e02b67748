#pragma once
// SHA-256 (FIPS 180-4), for the certificate's file digests.
#include <cstddef>
#include <cstdint>
#include <string>

namespace mxconform::certify {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t size);
  // The digest as 64 lowercase hex digits; the object is spent afterwards.
  std::string hex_digest();

 private:
  void block(const std::uint8_t* chunk);
  std::uint32_t state_[8];
  std::uint8_t buffer_[64];
  std::size_t buffered_ = 0;
  std::uint64_t length_ = 0;
};

// The digest of a file's bytes; throws Error naming the file when it cannot be read.
std::string sha256_file(const std::string& path);

}  // namespace mxconform::certify
