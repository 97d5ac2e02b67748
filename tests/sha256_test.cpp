// Sha256 and sha256_file against the FIPS 180-2 / NIST SHA-256 example vectors.
#include "sha256.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "mxconform/error.h"

namespace mxconform::certify {
namespace {

// FIPS 180-2, appendix B, and the NIST example set.
constexpr char kEmptyDigest[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr char kAbcDigest[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
constexpr char kTwoBlockMessage[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
constexpr char kTwoBlockDigest[] = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
constexpr char k896BitMessage[] =
    "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
constexpr char k896BitDigest[] = "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1";
constexpr char kMillionADigest[] = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
constexpr std::size_t kMillion = 1000000;

std::string digest_of(const std::string& message) {
  Sha256 hash;
  hash.update(message.data(), message.size());
  return hash.hex_digest();
}

std::string temp_path(const std::string& stem) { return ::testing::TempDir() + "/mxconform-sha256-test-" + stem; }

void write_file(const std::string& path, const std::string& bytes) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr) << path;
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), file), bytes.size());
  ASSERT_EQ(std::fclose(file), 0);
}

TEST(Sha256, KnownAnswers) {
  EXPECT_EQ(digest_of(""), kEmptyDigest);
  EXPECT_EQ(digest_of("abc"), kAbcDigest);
  EXPECT_EQ(digest_of(kTwoBlockMessage), kTwoBlockDigest);
  EXPECT_EQ(digest_of(k896BitMessage), k896BitDigest);
  EXPECT_EQ(digest_of(std::string(kMillion, 'a')), kMillionADigest);
}

TEST(Sha256, IncrementalUpdatesInOddChunksEqualOneShot) {
  // The million 'a' in chunks of 1, 3, 7, 55, 63, 64, 65 and 997 bytes (cycling), crossing every
  // block boundary position, then the two-block message in chunks of 5.
  const std::string million(kMillion, 'a');
  const std::size_t chunks[] = {1, 3, 7, 55, 63, 64, 65, 997};
  Sha256 hash;
  std::size_t at = 0;
  for (std::size_t i = 0; at < million.size(); ++i) {
    const std::size_t take = std::min(chunks[i % std::size(chunks)], million.size() - at);
    hash.update(million.data() + at, take);
    at += take;
  }
  EXPECT_EQ(hash.hex_digest(), kMillionADigest);

  const std::string message = kTwoBlockMessage;
  Sha256 by_fives;
  for (std::size_t i = 0; i < message.size(); i += 5) by_fives.update(message.data() + i, std::min<std::size_t>(5, message.size() - i));
  EXPECT_EQ(by_fives.hex_digest(), kTwoBlockDigest);
}

TEST(Sha256, EmptyUpdatesChangeNothing) {
  Sha256 hash;
  hash.update(nullptr, 0);
  hash.update("abc", 3);
  hash.update("", 0);
  EXPECT_EQ(hash.hex_digest(), kAbcDigest);
}

TEST(Sha256, ASpentHashRefusesMore) {
  Sha256 hash;
  hash.update("abc", 3);
  EXPECT_EQ(hash.hex_digest(), kAbcDigest);
  EXPECT_THROW(hash.update("x", 1), std::logic_error);
  EXPECT_THROW(hash.hex_digest(), std::logic_error);
}

TEST(Sha256, FileDigestEqualsTheStringDigest) {
  const std::string small = temp_path("abc");
  write_file(small, "abc");
  EXPECT_EQ(sha256_file(small), kAbcDigest);
  const std::string empty = temp_path("empty");
  write_file(empty, "");
  EXPECT_EQ(sha256_file(empty), kEmptyDigest);
  // Longer than sha256_file's read chunk, so it takes several reads.
  const std::string large = temp_path("million-a");
  write_file(large, std::string(kMillion, 'a'));
  EXPECT_EQ(sha256_file(large), kMillionADigest);
  std::remove(small.c_str());
  std::remove(empty.c_str());
  std::remove(large.c_str());
}

TEST(Sha256, AFileThatCannotBeReadIsAnErrorNamingIt) {
  const std::string missing = temp_path("no-such-file");
  std::remove(missing.c_str());
  try {
    sha256_file(missing);
    FAIL() << "hashed a missing file";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(missing), std::string::npos) << message;
    EXPECT_NE(message.find("No such file"), std::string::npos) << message;
  }
  // A directory opens but cannot be read: an error, not the digest of no bytes.
  const std::string directory = ::testing::TempDir();
  try {
    const std::string digest = sha256_file(directory);
    FAIL() << "hashed a directory: " << digest;
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(directory), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace mxconform::certify
