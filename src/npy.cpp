// NumPy .npy reader and writer. See include/mxconform/npy.h for the contract.
//
// File layout (numpy's format.py): the 6-byte magic "\x93NUMPY", a major and minor version byte,
// a little-endian header length (2 bytes for version 1.0, 4 bytes for 2.0 and 3.0), the header
// (a Python dict literal padded with spaces and ending in '\n'), then the raw element bytes.
#include "mxconform/npy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "mxconform/atomic_file.h"
#include "mxconform/error.h"

namespace mxconform::npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLength = 6;
// Larger than any header a real array needs (numpy itself refuses headers over 10000 bytes by
// default); bounds the allocation made for a hostile header length.
constexpr uint64_t kMaxHeaderLength = uint64_t{1} << 20;
// numpy aligns the data start to this many bytes.
constexpr size_t kAlign = 64;
// numpy (>= 1.24) pads the header so the first axis can grow in place to this many digits.
constexpr size_t kGrowthAxisMaxDigits = 21;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error(path + ": " + what);
}

std::string errno_text(int error) { return std::strerror(error); }

// `text` made safe to quote in a one-line message: non-printable bytes escaped, length capped.
std::string printable(std::string_view text) {
  constexpr size_t kMaxShown = 40;
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < text.size() && i < kMaxShown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  if (text.size() > kMaxShown) out += "...";
  return out;
}

// Python's repr of a tuple of ints: "()", "(8,)", "(8, 4)".
std::string shape_repr(const std::vector<size_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  if (shape.size() == 1) out += ',';
  out += ')';
  return out;
}

bool checked_multiply(size_t a, size_t b, size_t* product) {
  if (b != 0 && a > std::numeric_limits<size_t>::max() / b) return false;
  *product = a * b;
  return true;
}

// Number of bytes an array of `shape` and `type` occupies; throws if that overflows size_t.
size_t data_size(const std::string& path, const std::vector<size_t>& shape, ElementType type) {
  size_t count = 1;
  for (size_t dim : shape) {
    if (!checked_multiply(count, dim, &count)) {
      fail(path, "shape " + shape_repr(shape) + " has too many elements (count overflows size_t)");
    }
  }
  size_t bytes = 0;
  if (!checked_multiply(count, element_size(type), &bytes)) {
    fail(path, "shape " + shape_repr(shape) + " of " + std::string(descr(type)) +
                   " is too large (byte size overflows size_t)");
  }
  return bytes;
}

// Owns a POSIX file descriptor.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // Closes now and returns 0, or -1 with errno set (close errors can report lost writes).
  int close() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd);
  }

 private:
  int fd_;
};

// Reads up to `count` bytes, stopping early only at end of file; returns the number read.
size_t read_fully(const std::string& path, int fd, uint8_t* buffer, size_t count) {
  size_t done = 0;
  while (done < count) {
    const ssize_t n = ::read(fd, buffer + done, count - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, "cannot read: " + errno_text(errno));
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

// The three header fields, as parsed.
struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<size_t> shape;
};

// Parses the header dict literal, e.g. {'descr': '<u2', 'fortran_order': False, 'shape': (8, 4), }
// Accepts what Python's literal syntax allows for these three keys: keys in any order, single or
// double quotes, any whitespace, an optional trailing comma; then only whitespace to the end.
class HeaderParser {
 public:
  HeaderParser(const std::string& path, std::string_view text) : path_(path), text_(text) {}

  Header parse() {
    Header header;
    bool seen_descr = false;
    bool seen_fortran_order = false;
    bool seen_shape = false;
    skip_space();
    expect('{', "the header to start with '{'");
    skip_space();
    while (!consume('}')) {
      const std::string key = parse_string("a quoted key");
      skip_space();
      expect(':', "':' after key '" + printable(key) + "'");
      skip_space();
      bool* seen = nullptr;
      if (key == "descr") {
        seen = &seen_descr;
        header.descr = parse_string("a quoted string for 'descr'");
      } else if (key == "fortran_order") {
        seen = &seen_fortran_order;
        header.fortran_order = parse_bool("fortran_order");
      } else if (key == "shape") {
        seen = &seen_shape;
        header.shape = parse_shape();
      } else {
        malformed("unexpected key '" + printable(key) + "'");
      }
      if (*seen) malformed("duplicate key '" + key + "'");
      *seen = true;
      skip_space();
      if (consume(',')) {
        skip_space();
      } else if (!peek('}')) {
        malformed(std::string("expected ',' or '}' ") + where());
      }
    }
    skip_space();
    if (pos_ != text_.size()) malformed("unexpected text after the closing '}' " + where());
    if (!seen_descr) malformed("missing key 'descr'");
    if (!seen_fortran_order) malformed("missing key 'fortran_order'");
    if (!seen_shape) malformed("missing key 'shape'");
    return header;
  }

 private:
  [[noreturn]] void malformed(const std::string& what) const {
    fail(path_, "malformed header: " + what);
  }

  std::string where() const {
    if (pos_ >= text_.size()) return "at end of header";
    return "at offset " + std::to_string(pos_) + " ('" + printable(text_.substr(pos_, 1)) + "')";
  }

  static bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  }
  void skip_space() {
    while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  }
  bool peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool consume(char c) {
    if (!peek(c)) return false;
    ++pos_;
    return true;
  }
  void expect(char c, const std::string& what) {
    if (!consume(c)) malformed("expected " + what + " " + where());
  }

  // A quoted string without escapes: 'abc' or "abc".
  std::string parse_string(const std::string& what) {
    if (!peek('\'') && !peek('"')) malformed("expected " + what + " " + where());
    const char quote = text_[pos_++];
    const size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      const auto c = static_cast<unsigned char>(text_[pos_]);
      if (c == '\\' || c < 0x20 || c == 0x7f) {
        malformed("unsupported character in string " + where());
      }
      ++pos_;
    }
    if (pos_ >= text_.size()) malformed("unterminated string");
    std::string value(text_.substr(start, pos_ - start));
    ++pos_;  // closing quote
    return value;
  }

  bool parse_bool(const std::string& key) {
    const size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                   text_[pos_] == '_')) {
      ++pos_;
    }
    const std::string_view word = text_.substr(start, pos_ - start);
    if (word == "True") return true;
    if (word == "False") return false;
    pos_ = start;
    malformed("'" + key + "' must be True or False, " + where());
  }

  // A tuple of non-negative integers: (), (8,), (8, 4), (8, 4,).
  std::vector<size_t> parse_shape() {
    std::vector<size_t> shape;
    expect('(', "a tuple for 'shape'");
    skip_space();
    bool trailing_comma = false;
    while (!consume(')')) {
      shape.push_back(parse_dimension());
      skip_space();
      trailing_comma = consume(',');
      skip_space();
      if (!trailing_comma && !peek(')')) malformed("unparsable shape: expected ',' or ')' " + where());
    }
    if (shape.size() == 1 && !trailing_comma) {
      malformed("shape (" + std::to_string(shape[0]) +
                ") is not a tuple (a 1-tuple needs a trailing comma)");
    }
    return shape;
  }

  size_t parse_dimension() {
    if (peek('-')) malformed("unparsable shape: negative dimension " + where());
    if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      malformed("unparsable shape: expected a dimension " + where());
    }
    size_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      const auto digit = static_cast<size_t>(text_[pos_] - '0');
      if (value > (std::numeric_limits<size_t>::max() - digit) / 10) {
        malformed("unparsable shape: dimension overflows size_t " + where());
      }
      value = value * 10 + digit;
      ++pos_;
    }
    return value;
  }

  const std::string& path_;
  std::string_view text_;
  size_t pos_ = 0;
};

// Maps a header descr to an ElementType, accepting numpy's little-endian and native spellings.
ElementType parse_descr(const std::string& path, const std::string& text) {
  const std::string quoted = "'" + printable(text) + "'";
  if (text.size() == 3) {
    const char order = text[0];
    const std::string_view code = std::string_view(text).substr(1);
    const bool little = order == '<' || order == '=';  // '=' is native; this build is little-endian
    if (code == "u1" && (little || order == '|')) return ElementType::kUint8;
    if (little) {
      if (code == "u2") return ElementType::kUint16;
      if (code == "f2") return ElementType::kFloat16;
      if (code == "f4") return ElementType::kFloat32;
    }
    if (order == '>' && (code == "u1" || code == "u2" || code == "f2" || code == "f4")) {
      fail(path, "unsupported dtype " + quoted + " (big-endian; save a little-endian array)");
    }
  }
  fail(path, "unsupported dtype " + quoted + " (supported: '|u1', '<u2', '<f2', '<f4')");
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "mxconform npy: '=' descr spellings and raw byte copies assume a little-endian host"
#endif

// The version 1.0 header for `array`, laid out exactly as numpy >= 1.24 writes it.
std::string make_header(const Array& array) {
  std::string header = "{'descr': '";
  header += descr(array.type);
  header += "', 'fortran_order': False, 'shape': ";
  header += shape_repr(array.shape);
  header += ", }";
  if (!array.shape.empty()) {
    header.append(kGrowthAxisMaxDigits - std::to_string(array.shape[0]).size(), ' ');
  }
  const size_t preamble = kMagicLength + 2 + 2;
  const size_t unpadded = preamble + header.size() + 1;  // + the final '\n'
  header.append(kAlign - unpadded % kAlign, ' ');
  header += '\n';
  return header;
}

}  // namespace

std::string_view descr(ElementType type) {
  switch (type) {
    case ElementType::kUint8: return "|u1";
    case ElementType::kUint16: return "<u2";
    case ElementType::kFloat16: return "<f2";
    case ElementType::kFloat32: return "<f4";
  }
  throw Error("npy: invalid ElementType value " + std::to_string(static_cast<int>(type)));
}

size_t element_size(ElementType type) {
  switch (type) {
    case ElementType::kUint8: return 1;
    case ElementType::kUint16: return 2;
    case ElementType::kFloat16: return 2;
    case ElementType::kFloat32: return 4;
  }
  throw Error("npy: invalid ElementType value " + std::to_string(static_cast<int>(type)));
}

Array read(const std::string& path) {
  // O_NONBLOCK so that opening a FIFO cannot hang; it has no effect on regular files.
  FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (file.get() < 0) fail(path, "cannot open: " + errno_text(errno));
  struct stat info {};
  if (::fstat(file.get(), &info) != 0) fail(path, "cannot stat: " + errno_text(errno));
  if (!S_ISREG(info.st_mode)) fail(path, "not a regular file");
  const auto file_size = static_cast<uint64_t>(info.st_size);

  // Magic and version.
  uint8_t preamble[12] = {};
  size_t got = read_fully(path, file.get(), preamble, kMagicLength + 2);
  if (got == 0) fail(path, "not a .npy file (file is empty)");
  if (std::memcmp(preamble, kMagic, got < kMagicLength ? got : kMagicLength) != 0) {
    fail(path, "not a .npy file (bad magic)");
  }
  if (got < kMagicLength + 2) {
    fail(path, "truncated: " + std::to_string(got) + " bytes is shorter than the .npy preamble");
  }
  const unsigned major = preamble[6];
  const unsigned minor = preamble[7];
  if (major < 1 || major > 3 || minor != 0) {
    fail(path, "unsupported .npy format version " + std::to_string(major) + "." +
                   std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  }

  // Header length and header.
  const size_t length_bytes = major == 1 ? 2 : 4;
  got = read_fully(path, file.get(), preamble + kMagicLength + 2, length_bytes);
  if (got < length_bytes) fail(path, "truncated: file ends inside the header length field");
  uint64_t header_length = 0;
  for (size_t i = 0; i < length_bytes; ++i) {
    header_length |= uint64_t{preamble[kMagicLength + 2 + i]} << (8 * i);
  }
  if (header_length > kMaxHeaderLength) {
    fail(path, "header length " + std::to_string(header_length) + " is too large (limit " +
                   std::to_string(kMaxHeaderLength) + " bytes)");
  }
  const uint64_t data_offset = kMagicLength + 2 + length_bytes + header_length;
  if (data_offset > file_size) {
    fail(path, "truncated: header length " + std::to_string(header_length) +
                   " runs past the end of the file (" + std::to_string(file_size) + " bytes)");
  }
  std::string header_text(static_cast<size_t>(header_length), '\0');
  got = read_fully(path, file.get(), reinterpret_cast<uint8_t*>(header_text.data()),
                   header_text.size());
  if (got < header_text.size()) fail(path, "truncated: file ends inside the header");

  const Header header = HeaderParser(path, header_text).parse();
  Array array;
  array.type = parse_descr(path, header.descr);
  if (header.fortran_order) fail(path, "fortran_order True is not supported; save a C-ordered array");
  array.shape = header.shape;

  // Data: sizes are checked against the file before anything is allocated.
  const size_t expected = data_size(path, array.shape, array.type);
  const uint64_t available = file_size - data_offset;
  const std::string says = "header says shape " + shape_repr(array.shape) + " of " +
                           std::string(descr(array.type)) + " = " + std::to_string(expected) +
                           " bytes, file has " + std::to_string(available) + " data bytes";
  if (available < expected) fail(path, "truncated: " + says);
  if (available > expected) {
    fail(path, "trailing data: " + says + " (" + std::to_string(available - expected) +
                   " extra bytes)");
  }
  array.bytes.resize(expected);
  if (read_fully(path, file.get(), array.bytes.data(), expected) < expected) {
    fail(path, "truncated: file shrank while being read");
  }
  uint8_t extra = 0;
  if (read_fully(path, file.get(), &extra, 1) != 0) {
    fail(path, "trailing data: file grew while being read");
  }
  return array;
}

void write(const std::string& path, const Array& array, bool overwrite) {
  const size_t expected = data_size(path, array.shape, array.type);
  if (array.bytes.size() != expected) {
    fail(path, "cannot write: array has " + std::to_string(array.bytes.size()) +
                   " bytes but shape " + shape_repr(array.shape) + " of " +
                   std::string(descr(array.type)) + " needs " + std::to_string(expected));
  }
  const std::string header = make_header(array);
  if (header.size() > 0xffff) {
    fail(path, "cannot write: shape has too many dimensions for a version 1.0 header");
  }

  const char version_and_length[4] = {1, 0, static_cast<char>(header.size() & 0xff),
                                      static_cast<char>(header.size() >> 8)};
  write_file_atomically(path,
                        {std::string_view(kMagic, kMagicLength), std::string_view(version_and_length, 4), header,
                         std::string_view(reinterpret_cast<const char*>(array.bytes.data()), array.bytes.size())},
                        overwrite);
}

}  // namespace mxconform::npy
