#pragma once
// NumPy .npy files: read format versions 1.0, 2.0 and 3.0, write version 1.0. Only C-ordered,
// little-endian arrays of the four element types mxconform exchanges are supported. Every
// failure is an mxconform::Error whose one-line message names the file and the rule broken.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mxconform::npy {

// The element types a .npy file may hold; the comment gives the numpy descr of each.
enum class ElementType { kUint8, kUint16, kFloat16, kFloat32 };  // '|u1', '<u2', '<f2', '<f4'

// The numpy descr string written for `type`: "|u1", "<u2", "<f2" or "<f4".
std::string_view descr(ElementType type);

// Bytes per element of `type`: 1, 2, 2 or 4.
size_t element_size(ElementType type);

// An in-memory array: element type, C-order shape and the raw element bytes.
// Invariant expected by write() and guaranteed by read():
// bytes.size() == product(shape) * element_size(type); an empty shape is a 0-d (one element) array.
struct Array {
  ElementType type = ElementType::kUint8;
  std::vector<size_t> shape;   // C order
  std::vector<uint8_t> bytes;  // raw little-endian element bytes, product(shape)*element_size
};

// Reads the .npy file at `path` (versions 1.0/2.0/3.0; descr '|u1'/'<u1', '<u2', '<f2', '<f4' and
// '='-native spellings; fortran_order False). Throws Error on an unopenable, malformed, truncated
// or over-long file or an unsupported dtype. Allocates only after checking sizes against the file.
Array read(const std::string& path);

// Writes `array` to `path` as a version 1.0 .npy file with write_file_atomically (atomic_file.h):
// whole or not at all, only over a regular file. Refuses (Error) when `path` exists and
// `overwrite` is false, when it is not a regular file, when its directory is missing, or when
// array.bytes does not match its shape. On failure no temporary file is left behind and an
// existing `path` is unchanged.
void write(const std::string& path, const Array& array, bool overwrite);

}  // namespace mxconform::npy
