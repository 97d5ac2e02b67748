// Tests for the .npy reader and writer (include/mxconform/npy.h).
#include "mxconform/npy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "mxconform/error.h"

namespace mxconform::npy {
namespace {

namespace fs = std::filesystem;

// A fresh directory for the running test, removed afterwards.
class ScopedTempDir {
 public:
  ScopedTempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::path(::testing::TempDir()) /
            ("mxconform_npy_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScopedTempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Changes the working directory for the scope of the object.
class ScopedChdir {
 public:
  explicit ScopedChdir(const fs::path& to) : from_(fs::current_path()) { fs::current_path(to); }
  ~ScopedChdir() { fs::current_path(from_); }

 private:
  fs::path from_;
};

std::set<std::string> list_dir(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename().string());
  return names;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Magic, version `major`.0, the little-endian header length field (2 bytes for 1.0, 4 otherwise),
// then `header` and `data` verbatim.
std::string npy_bytes(int major, const std::string& header, const std::string& data) {
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  const size_t length_bytes = major == 1 ? 2 : 4;
  for (size_t i = 0; i < length_bytes; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

std::string v1(const std::string& header, const std::string& data) { return npy_bytes(1, header, data); }

// Succeeds when `action` throws mxconform::Error with a one-line message that starts with
// "<path>: " and contains `phrase`.
::testing::AssertionResult ThrowsError(const std::function<void()>& action, const std::string& path,
                                       const std::string& phrase) {
  try {
    action();
  } catch (const Error& error) {
    const std::string message = error.what();
    if (message.rfind(path + ": ", 0) != 0) {
      return ::testing::AssertionFailure() << "message does not start with the path: " << message;
    }
    if (message.find(phrase) == std::string::npos) {
      return ::testing::AssertionFailure() << "message lacks '" << phrase << "': " << message;
    }
    if (message.find('\n') != std::string::npos) {
      return ::testing::AssertionFailure() << "message is not one line: " << message;
    }
    return ::testing::AssertionSuccess() << message;
  } catch (const std::exception& other) {
    return ::testing::AssertionFailure() << "threw a non-Error exception: " << other.what();
  } catch (...) {
    return ::testing::AssertionFailure() << "threw a non-exception";
  }
  return ::testing::AssertionFailure() << "did not throw";
}

std::string error_message(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    return error.what();
  }
  return "<no Error thrown>";
}

Array make_array(ElementType type, std::vector<size_t> shape) {
  Array array;
  array.type = type;
  array.shape = std::move(shape);
  size_t count = 1;
  for (size_t dim : array.shape) count *= dim;
  array.bytes.resize(count * element_size(type));
  for (size_t i = 0; i < array.bytes.size(); ++i) array.bytes[i] = static_cast<uint8_t>(i * 37 + 11);
  return array;
}

void expect_same(const Array& expected, const Array& actual) {
  EXPECT_EQ(expected.type, actual.type);
  EXPECT_EQ(expected.shape, actual.shape);
  EXPECT_EQ(expected.bytes, actual.bytes);
}

void expect_round_trip(ElementType type) {
  ScopedTempDir dir;
  for (const std::vector<size_t>& shape :
       {std::vector<size_t>{8, 4}, {5}, {}, {0, 5}, {2, 3, 4}, {1000, 1}}) {
    SCOPED_TRACE("shape rank " + std::to_string(shape.size()));
    const Array array = make_array(type, shape);
    const std::string path = dir.file("a.npy");
    write(path, array, /*overwrite=*/true);
    expect_same(array, read(path));
    // numpy aligns the data start to 64 bytes.
    EXPECT_EQ(0u, (read_file(path).size() - array.bytes.size()) % 64);
  }
}

TEST(Npy, DescrAndElementSize) {
  EXPECT_EQ("|u1", descr(ElementType::kUint8));
  EXPECT_EQ("<u2", descr(ElementType::kUint16));
  EXPECT_EQ("<f2", descr(ElementType::kFloat16));
  EXPECT_EQ("<f4", descr(ElementType::kFloat32));
  EXPECT_EQ(1u, element_size(ElementType::kUint8));
  EXPECT_EQ(2u, element_size(ElementType::kUint16));
  EXPECT_EQ(2u, element_size(ElementType::kFloat16));
  EXPECT_EQ(4u, element_size(ElementType::kFloat32));
}

TEST(Npy, RoundTripUint8) { expect_round_trip(ElementType::kUint8); }
TEST(Npy, RoundTripUint16) { expect_round_trip(ElementType::kUint16); }
TEST(Npy, RoundTripFloat16) { expect_round_trip(ElementType::kFloat16); }
TEST(Npy, RoundTripFloat32) { expect_round_trip(ElementType::kFloat32); }

// The exact bytes numpy 1.24 np.save writes for these arrays (checked against numpy by hand).
TEST(Npy, WritesHeaderLikeNumpy) {
  ScopedTempDir dir;
  const std::string path = dir.file("a.npy");
  write(path, make_array(ElementType::kUint16, {8, 4}), false);
  const std::string header = "{'descr': '<u2', 'fortran_order': False, 'shape': (8, 4), }" +
                             std::string(58, ' ') + "\n";
  ASSERT_EQ(118u, header.size());
  EXPECT_EQ(std::string("\x93NUMPY\x01\x00\x76\x00", 10) + header, read_file(path).substr(0, 128));

  const std::string scalar = dir.file("s.npy");
  write(scalar, make_array(ElementType::kUint8, {}), false);
  const std::string scalar_header =
      "{'descr': '|u1', 'fortran_order': False, 'shape': (), }" + std::string(62, ' ') + "\n";
  EXPECT_EQ(std::string("\x93NUMPY\x01\x00\x76\x00", 10) + scalar_header + "\x0b",
            read_file(scalar));
}

TEST(Npy, ReadsHandBuiltVersion1File) {
  ScopedTempDir dir;
  const std::string path = dir.file("hand.npy");
  // Keys out of order, double quotes, extra spaces, trailing comma, not 64-aligned.
  const std::string header =
      "{\"shape\" : ( 2 ,3 ), 'fortran_order':False,  \"descr\": '<u2' ,}      \n";
  const std::string data("\x01\x00\x02\x00\x03\x00\x04\x00\x05\x00\xff\xff", 12);
  write_file(path, std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) +
                       std::string(1, '\0') + header + data);
  const Array array = read(path);
  EXPECT_EQ(ElementType::kUint16, array.type);
  EXPECT_EQ((std::vector<size_t>{2, 3}), array.shape);
  EXPECT_EQ(std::vector<uint8_t>(data.begin(), data.end()), array.bytes);
}

TEST(Npy, ReadsHandBuiltVersion2And3Files) {
  ScopedTempDir dir;
  const std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }    \n";
  const std::string data("\x00\x00\x80\x3f\x00\x00\x00\xc0", 8);  // 1.0f, -2.0f
  for (int major : {2, 3}) {
    SCOPED_TRACE(major);
    const std::string path = dir.file("v" + std::to_string(major) + ".npy");
    // Hand-built: 4-byte little-endian header length for versions 2.0 and 3.0.
    write_file(path, std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0' +
                         static_cast<char>(header.size()) + std::string(3, '\0') + header + data);
    const Array array = read(path);
    EXPECT_EQ(ElementType::kFloat32, array.type);
    EXPECT_EQ(std::vector<size_t>{2}, array.shape);
    EXPECT_EQ(std::vector<uint8_t>(data.begin(), data.end()), array.bytes);
  }
}

TEST(Npy, AcceptsDescrSpellings) {
  ScopedTempDir dir;
  const std::string path = dir.file("d.npy");
  const struct {
    const char* descr;
    ElementType type;
  } cases[] = {{"|u1", ElementType::kUint8},  {"<u1", ElementType::kUint8},
               {"=u1", ElementType::kUint8},  {"<u2", ElementType::kUint16},
               {"=u2", ElementType::kUint16}, {"<f2", ElementType::kFloat16},
               {"=f2", ElementType::kFloat16}, {"<f4", ElementType::kFloat32},
               {"=f4", ElementType::kFloat32}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.descr);
    const std::string header =
        std::string("{'descr': '") + c.descr + "', 'fortran_order': False, 'shape': (3,), }\n";
    write_file(path, v1(header, std::string(3 * element_size(c.type), '\x07')));
    EXPECT_EQ(c.type, read(path).type);
  }
}

TEST(Npy, AcceptsShapeSpellings) {
  ScopedTempDir dir;
  const std::string path = dir.file("s.npy");
  const struct {
    const char* shape;
    std::vector<size_t> expected;
  } cases[] = {{"()", {}},          {"( )", {}},          {"(8,)", {8}},
               {"(8 , )", {8}},     {"(8, 4)", {8, 4}},   {"(8,4,)", {8, 4}},
               {"(0,)", {0}},       {"(1, 1, 1)", {1, 1, 1}}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.shape);
    const std::string header =
        std::string("{'descr': '|u1', 'fortran_order': False, 'shape': ") + c.shape + "}\n";
    size_t count = 1;
    for (size_t dim : c.expected) count *= dim;
    write_file(path, v1(header, std::string(count, 'x')));
    EXPECT_EQ(c.expected, read(path).shape);
  }
}

TEST(Npy, ReadMissingFileFails) {
  ScopedTempDir dir;
  const std::string path = dir.file("missing.npy");
  EXPECT_TRUE(ThrowsError([&] { read(path); }, path, "cannot open: No such file or directory"));
}

TEST(Npy, ReadDirectoryFails) {
  ScopedTempDir dir;
  const std::string path = dir.path().string();
  EXPECT_TRUE(ThrowsError([&] { read(path); }, path, "not a regular file"));
}

TEST(Npy, ReadBadMagicFails) {
  ScopedTempDir dir;
  const std::string path = dir.file("in.npy");
  write_file(path, "PK\x03\x04 this is a zip file, not an npy file");
  EXPECT_TRUE(ThrowsError([&] { read(path); }, path, "not a .npy file (bad magic)"));
  write_file(path, "");
  EXPECT_TRUE(ThrowsError([&] { read(path); }, path, "not a .npy file (file is empty)"));
  write_file(path, "\x93NUM");
  EXPECT_TRUE(ThrowsError([&] { read(path); }, path, "truncated"));
}

TEST(Npy, ReadUnsupportedVersionFails) {
  ScopedTempDir dir;
  const std::string path = dir.file("in.npy");
  const std::string header = "{'descr': '|u1', 'fortran_order': False, 'shape': (1,), }\n";
  write_file(path, npy_bytes(4, header, "x"));
  EXPECT_TRUE(ThrowsError([&] { read(path); }, path, "unsupported .npy format version 4.0"));
  std::string minor = v1(header, "x");
  minor[7] = 1;
  write_file(path, minor);
  EXPECT_TRUE(ThrowsError([&] { read(path); }, path, "unsupported .npy format version 1.1"));
}

TEST(Npy, ReadTruncatedDataFails) {
  ScopedTempDir dir;
  const std::string path = dir.file("in.npy");
  write_file(path, v1("{'descr': '<u2', 'fortran_order': False, 'shape': (8, 4), }\n",
                      std::string(40, '\0')));
  EXPECT_EQ(path + ": truncated: header says shape (8, 4) of <u2 = 64 bytes, file has 40 data bytes",
            error_message([&] { read(path); }));
}

TEST(Npy, ReadTrailingDataFails) {
  ScopedTempDir dir;
  const std::string path = dir.file("in.npy");
  write_file(path, v1("{'descr': '<u2', 'fortran_order': False, 'shape': (8, 4), }\n",
                      std::string(70, '\0')));
  EXPECT_TRUE(ThrowsError([&] { read(path); }, path,
                          "trailing data: header says shape (8, 4) of <u2 = 64 bytes, file has 70 "
                          "data bytes (6 extra bytes)"));
}

TEST(Npy, ReadAbsurdHeaderLengthFails) {
  ScopedTempDir dir;
  const std::string path = dir.file("in.npy");
  // Version 2.0 header length 0xffffffff in a tiny file.
  write_file(path, std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff{}", 14));
  EXPECT_TRUE(ThrowsError([&] { read(path); }, path, "header length 4294967295 is too large"));
  // Within the limit but longer than the file.
  write_file(path, std::string("\x93NUMPY\x01\x00\x00\x10{}", 12));
  EXPECT_TRUE(ThrowsError([&] { read(path); }, path,
                          "truncated: header length 4096 runs past the end of the file"));
  // File ends inside the length field.
  write_file(path, std::string("\x93NUMPY\x02\x00\x10", 9));
  EXPECT_TRUE(ThrowsError([&] { read(path); }, path, "truncated: file ends inside the header length"));
}

TEST(Npy, ReadMalformedHeaderFails) {
  ScopedTempDir dir;
  const std::string path = dir.file("in.npy");
  const struct {
    const char* header;
    const char* phrase;
  } cases[] = {
      {"{'fortran_order': False, 'shape': (3,), }\n", "missing key 'descr'"},
      {"{'descr': '|u1', 'shape': (3,), }\n", "missing key 'fortran_order'"},
      {"{'descr': '|u1', 'fortran_order': False, }\n", "missing key 'shape'"},
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (3,), 'x': 1}\n", "unexpected key 'x'"},
      {"{'descr': '|u1', 'descr': '|u1', 'fortran_order': False, 'shape': (3,)}\n",
       "duplicate key 'descr'"},
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (3, x), }\n", "unparsable shape"},
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (3 4), }\n", "unparsable shape"},
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (,), }\n", "unparsable shape"},
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (3,,), }\n", "unparsable shape"},
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (-3,), }\n", "negative dimension"},
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (3), }\n", "is not a tuple"},
      {"{'descr': '|u1', 'fortran_order': False, 'shape': [3], }\n", "expected a tuple for 'shape'"},
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (99999999999999999999999,), }\n",
       "dimension overflows size_t"},
      {"{'descr': '|u1', 'fortran_order': 0, 'shape': (3,), }\n", "must be True or False"},
      {"{'descr': <u1, 'fortran_order': False, 'shape': (3,), }\n", "quoted string for 'descr'"},
      {"{'descr': '|u1, 'fortran_order': False, 'shape': (3,), }\n", "malformed header"},
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (3,) \n", "expected ',' or '}'"},
      {"{'descr': '|u1' 'fortran_order': False, 'shape': (3,)}\n", "expected ',' or '}'"},
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (3,)} x\n", "unexpected text after"},
      {"'descr': '|u1', 'fortran_order': False, 'shape': (3,)}\n", "start with '{'"},
      {"", "start with '{'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.header);
    write_file(path, v1(c.header, "xxx"));
    EXPECT_TRUE(ThrowsError([&] { read(path); }, path, "malformed header"));
    EXPECT_TRUE(ThrowsError([&] { read(path); }, path, c.phrase));
  }
}

TEST(Npy, ReadShapeOverflowFails) {
  ScopedTempDir dir;
  const std::string path = dir.file("in.npy");
  write_file(path, v1("{'descr': '|u1', 'fortran_order': False, "
                      "'shape': (4294967296, 4294967296, 4294967296), }\n",
                      "x"));
  EXPECT_TRUE(ThrowsError([&] { read(path); }, path, "count overflows size_t"));
  // The element count fits but the byte count does not.
  write_file(path, v1("{'descr': '<f4', 'fortran_order': False, 'shape': (9223372036854775807,), }\n",
                      "x"));
  EXPECT_TRUE(ThrowsError([&] { read(path); }, path, "byte size overflows size_t"));
  // Huge but representable: rejected as truncated before anything is allocated.
  write_file(path, v1("{'descr': '|u1', 'fortran_order': False, 'shape': (1000000000000,), }\n",
                      "x"));
  EXPECT_TRUE(ThrowsError([&] { read(path); }, path, "truncated"));
}

TEST(Npy, ReadFortranOrderFails) {
  ScopedTempDir dir;
  const std::string path = dir.file("in.npy");
  write_file(path, v1("{'descr': '<u2', 'fortran_order': True, 'shape': (2, 2), }\n",
                      std::string(8, '\0')));
  EXPECT_EQ(path + ": fortran_order True is not supported; save a C-ordered array",
            error_message([&] { read(path); }));
}

TEST(Npy, ReadUnsupportedDtypeFails) {
  ScopedTempDir dir;
  const std::string path = dir.file("in.npy");
  for (const char* bad : {"<i8", "<f8", "|b1", "<u4", "u2", "|u2", "<U10", "\xc3\xa9u2", "<u2 "}) {
    SCOPED_TRACE(bad);
    write_file(path, v1(std::string("{'descr': '") + bad + "', 'fortran_order': False, 'shape': (1,), }\n",
                        "xxxxxxxx"));
    EXPECT_TRUE(ThrowsError([&] { read(path); }, path, "unsupported dtype '"));
  }
  write_file(path, v1("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }\n", "xxxxxxxx"));
  EXPECT_TRUE(ThrowsError([&] { read(path); }, path, "unsupported dtype '<i8'"));
  write_file(path, v1("{'descr': '>u2', 'fortran_order': False, 'shape': (1,), }\n", "xx"));
  EXPECT_TRUE(ThrowsError([&] { read(path); }, path, "unsupported dtype '>u2' (big-endian"));
}

// Every truncation and many corruptions of a valid file either read or throw Error; never crash.
TEST(Npy, ReadSurvivesCorruptedFiles) {
  ScopedTempDir dir;
  const std::string good_path = dir.file("good.npy");
  write(good_path, make_array(ElementType::kUint16, {3, 2}), false);
  const std::string good = read_file(good_path);
  const std::string path = dir.file("bad.npy");
  auto check = [&](const std::string& bytes) {
    write_file(path, bytes);
    try {
      read(path);
    } catch (const Error&) {
    }
  };
  for (size_t length = 0; length < good.size(); ++length) {
    check(good.substr(0, length));
    EXPECT_TRUE(ThrowsError([&] { read(path); }, path, ""));
  }
  std::mt19937 random(12345);
  const char interesting[] = {'\0', '\xff', '(', ')', ',', '\'', '"', '{', '}', '9', '-', ' ', '\n'};
  for (int trial = 0; trial < 3000; ++trial) {
    std::string bytes = good;
    const int edits = 1 + static_cast<int>(random() % 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = random() % bytes.size();
      bytes[at] = (random() % 2) ? interesting[random() % sizeof interesting]
                                 : static_cast<char>(random() % 256);
    }
    check(bytes);
  }
}

TEST(Npy, WriteRefusesExistingFileWithoutOverwrite) {
  ScopedTempDir dir;
  const std::string path = dir.file("x.npy");
  write_file(path, "precious contents");
  EXPECT_TRUE(ThrowsError([&] { write(path, make_array(ElementType::kUint8, {4}), false); }, path,
                          "exists; pass --force to overwrite"));
  EXPECT_EQ("precious contents", read_file(path));
  EXPECT_EQ(std::set<std::string>{"x.npy"}, list_dir(dir.path()));
}

TEST(Npy, WriteWithOverwriteReplacesFile) {
  ScopedTempDir dir;
  const std::string path = dir.file("x.npy");
  write_file(path, "old contents");
  const Array array = make_array(ElementType::kFloat32, {2, 2});
  write(path, array, true);
  expect_same(array, read(path));
  EXPECT_EQ(std::set<std::string>{"x.npy"}, list_dir(dir.path()));
}

TEST(Npy, WriteIntoMissingDirectoryFailsAndLeavesNoTempFile) {
  ScopedTempDir dir;
  {
    ScopedChdir chdir(dir.path());
    EXPECT_EQ("out/x.npy: output directory 'out' does not exist",
              error_message([] { write("out/x.npy", make_array(ElementType::kUint8, {4}), true); }));
  }
  const std::string path = dir.file("missing/deeper/x.npy");
  EXPECT_TRUE(ThrowsError([&] { write(path, make_array(ElementType::kUint8, {4}), false); }, path,
                          "does not exist"));
  EXPECT_TRUE(list_dir(dir.path()).empty());
}

TEST(Npy, WriteIntoCurrentDirectory) {
  ScopedTempDir dir;
  ScopedChdir chdir(dir.path());
  const Array array = make_array(ElementType::kUint16, {3});
  write("x.npy", array, false);
  expect_same(array, read("x.npy"));
  EXPECT_EQ("x.npy: exists; pass --force to overwrite",
            error_message([&] { write("x.npy", array, false); }));
  EXPECT_EQ(std::set<std::string>{"x.npy"}, list_dir("."));
}

TEST(Npy, WriteRejectsBytesNotMatchingShapeAndLeavesNoFile) {
  ScopedTempDir dir;
  const std::string path = dir.file("x.npy");
  Array array = make_array(ElementType::kUint16, {8, 4});
  array.bytes.pop_back();
  EXPECT_TRUE(ThrowsError([&] { write(path, array, true); }, path,
                          "array has 63 bytes but shape (8, 4) of <u2 needs 64"));
  EXPECT_TRUE(list_dir(dir.path()).empty());
}

TEST(Npy, WriteOverDirectoryFailsAndLeavesNoTempFile) {
  ScopedTempDir dir;
  const std::string path = dir.file("sub");
  fs::create_directory(path);
  EXPECT_TRUE(ThrowsError([&] { write(path, make_array(ElementType::kUint8, {1}), true); }, path,
                          "is a directory"));
  EXPECT_EQ(std::set<std::string>{"sub"}, list_dir(dir.path()));
}

}  // namespace
}  // namespace mxconform::npy
