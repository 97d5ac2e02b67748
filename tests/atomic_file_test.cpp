// Output files (include/mxconform/atomic_file.h): refused paths, and writes that are whole or
// leave everything as it was.
#include "mxconform/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "mxconform/error.h"

namespace mxconform {
namespace {

namespace fs = std::filesystem;

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "mxconform_atomic_file_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  std::string at(const std::string& name) const { return (dir_ / name).string(); }
  std::set<std::string> names() const {
    std::set<std::string> out;
    for (const auto& entry : fs::directory_iterator(dir_)) out.insert(entry.path().filename().string());
    return out;
  }
  static void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }
  static std::string contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // The message of the Error `action` throws, or "" when it throws none.
  template <typename Action>
  static std::string refusal(Action action) {
    try {
      action();
    } catch (const Error& error) {
      return error.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(AtomicFile, RefusesWhatIsNotARegularFileEvenWithForce) {
  ASSERT_EQ(::mkfifo(at("fifo").c_str(), 0600), 0);
  fs::create_directory(at("dir"));
  fs::create_symlink("/dev/null", at("to-null"));
  fs::create_symlink(at("dir"), at("to-dir"));
  fs::create_symlink(at("missing"), at("dangling"));
  EXPECT_EQ(refusal([&] { check_output_paths({}, {at("fifo")}, true); }), at("fifo") + ": is a FIFO; outputs must be regular files");
  EXPECT_EQ(refusal([&] { check_output_paths({}, {"/dev/null"}, true); }), "/dev/null: is a character device; outputs must be regular files");
  EXPECT_EQ(refusal([&] { check_output_paths({}, {at("dir")}, true); }), at("dir") + ": is a directory; outputs must be regular files");
  EXPECT_EQ(refusal([&] { check_output_paths({}, {at("to-null")}, true); }),
            at("to-null") + ": is a symbolic link to a character device; outputs must be regular files");
  EXPECT_EQ(refusal([&] { check_output_paths({}, {at("to-dir")}, true); }),
            at("to-dir") + ": is a symbolic link to a directory; outputs must be regular files");
  EXPECT_EQ(refusal([&] { check_output_paths({}, {at("dangling")}, true); }),
            at("dangling") + ": is a symbolic link to nothing; outputs must be regular files");
  for (const char* name : {"fifo", "to-null", "dir"}) {
    EXPECT_NE(refusal([&] { write_file_atomically(at(name), "x", true); }), "") << name;
  }
  EXPECT_TRUE(fs::is_fifo(at("fifo")));
  EXPECT_TRUE(fs::is_symlink(at("to-null")));
  EXPECT_EQ(names(), (std::set<std::string>{"fifo", "dir", "to-null", "to-dir", "dangling"}));
}

TEST_F(AtomicFile, RefusesAnExistingFileWithoutForceAndAMissingDirectory) {
  put(at("kept"), "precious");
  EXPECT_EQ(refusal([&] { check_output_paths({}, {at("kept")}, false); }), at("kept") + ": exists; pass --force to overwrite");
  EXPECT_EQ(refusal([&] { write_file_atomically(at("kept"), "new", false); }), at("kept") + ": exists; pass --force to overwrite");
  EXPECT_EQ(contents(at("kept")), "precious");
  EXPECT_EQ(refusal([&] { check_output_paths({}, {at("no/x")}, true); }), at("no/x") + ": output directory '" + at("no") + "' does not exist");
  EXPECT_EQ(refusal([&] { check_output_paths({}, {at("kept/x")}, true); }), at("kept/x") + ": output directory '" + at("kept") + "' is not a directory");
  EXPECT_EQ(refusal([&] { check_output_paths({}, {at("")}, true); }), at("") + ": names a directory, not a file");
  EXPECT_EQ(names(), std::set<std::string>{"kept"});
}

TEST_F(AtomicFile, RefusesAnOutputThatIsAnInputOrInsideAnInputDirectory) {
  put(at("input"), "in");
  fs::create_hard_link(at("input"), at("hard-link"));
  fs::create_symlink(at("input"), at("soft-link"));
  fs::create_directory(at("corpus"));
  for (const std::string& output : {at("input"), at("./input"), at("hard-link"), at("soft-link")}) {
    EXPECT_EQ(refusal([&] { check_output_paths({at("input")}, {output}, true); }),
              output + ": is also an input file; choose another output path");
  }
  EXPECT_EQ(refusal([&] { check_output_paths({at("corpus")}, {at("corpus/new.yaml")}, true); }),
            at("corpus/new.yaml") + ": is inside the input directory '" + at("corpus") + "'; choose another output path");
  // A missing input is compared by name.
  EXPECT_NE(refusal([&] { check_output_paths({at("later")}, {at("./later")}, true); }), "");
  EXPECT_EQ(refusal([&] { check_output_paths({at("input"), at("corpus")}, {at("out")}, false); }), "");
}

TEST_F(AtomicFile, RefusesTwoOutputsNamingOneFile) {
  EXPECT_EQ(refusal([&] { check_output_paths({}, {at("a"), at("./a")}, false); }),
            at("./a") + ": named for two outputs (also as '" + at("a") + "')");
  put(at("b"), "b");
  fs::create_symlink(at("b"), at("to-b"));
  EXPECT_NE(refusal([&] { check_output_paths({}, {at("b"), at("to-b")}, true); }), "");
  EXPECT_EQ(refusal([&] { check_output_paths({}, {at("a"), at("c")}, false); }), "");
}

TEST_F(AtomicFile, WritesWholeWithTheUmaskAndReplacesOnlyWithForce) {
  write_file_atomically(at("new"), std::vector<std::string_view>{"one ", "two"}, false);
  EXPECT_EQ(contents(at("new")), "one two");
  const mode_t mask = ::umask(0);
  ::umask(mask);
  struct stat info {};
  ASSERT_EQ(::stat(at("new").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0666 & ~mask);
  write_file_atomically(at("new"), "three", true);
  EXPECT_EQ(contents(at("new")), "three");
  EXPECT_EQ(names(), std::set<std::string>{"new"});
}

TEST_F(AtomicFile, ForceReplacesALinkToARegularFileNotItsTarget) {
  put(at("target"), "target");
  fs::create_symlink(at("target"), at("link"));
  write_file_atomically(at("link"), "written", true);
  EXPECT_FALSE(fs::is_symlink(at("link")));
  EXPECT_EQ(contents(at("link")), "written");
  EXPECT_EQ(contents(at("target")), "target");
}

TEST_F(AtomicFile, AFailedWriteLeavesNoTemporaryFile) {
  fs::create_directory(at("sub"));
  EXPECT_NE(refusal([&] { write_file_atomically(at("sub"), "x", true); }), "");
  if (::geteuid() != 0) {  // root writes into a read-only directory anyway
    fs::permissions(at("sub"), fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_NE(refusal([&] { write_file_atomically(at("sub/x"), "x", false); }).find("cannot create a temporary file"),
              std::string::npos);
    fs::permissions(at("sub"), fs::perms::owner_all);
  }
  EXPECT_TRUE(fs::is_empty(at("sub")));
  EXPECT_EQ(names(), std::set<std::string>{"sub"});
}

}  // namespace
}  // namespace mxconform
