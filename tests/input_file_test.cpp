// input_file.cpp: a regular file is read whole; a FIFO, a directory, a missing file and a file
// above the cap are refused at once with the path and the reason.
#include "mxconform/input_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "mxconform/error.h"

namespace mxconform {
namespace {

std::string temp_path(const std::string& stem) {
  return ::testing::TempDir() + "mxconform-input-file-test-" + std::to_string(::getpid()) + "-" + stem;
}

std::string error_of(const std::string& path, std::size_t max_bytes = kMaxInputFileBytes) {
  try {
    read_input_file(path, max_bytes);
  } catch (const Error& error) {
    return error.what();
  }
  ADD_FAILURE() << "no Error for " << path;
  return "";
}

TEST(ReadInputFile, ARegularFileIsReadWhole) {
  const std::string path = temp_path("whole");
  const std::string bytes = std::string("a\0b\nc", 5) + std::string(100000, 'x');
  std::FILE* file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  std::fwrite(bytes.data(), 1, bytes.size(), file);
  std::fclose(file);
  EXPECT_EQ(read_input_file(path), bytes);
  EXPECT_EQ(error_of(path, 1000), path + ": 100005 bytes: larger than 1000");
  std::remove(path.c_str());
}

TEST(ReadInputFile, AFifoIsRefusedWithoutWaitingForAWriter) {
  const std::string path = temp_path("fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(error_of(path), path + ": not a regular file");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  std::remove(path.c_str());
}

TEST(ReadInputFile, MissingFilesAndDirectoriesAreNamed) {
  const std::string missing = temp_path("missing");
  EXPECT_EQ(error_of(missing), missing + ": cannot open: No such file or directory");
  EXPECT_EQ(error_of(::testing::TempDir()), ::testing::TempDir() + ": not a regular file");
}

}  // namespace
}  // namespace mxconform
