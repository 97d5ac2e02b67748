#pragma once
// Runs one corpus case through an implementation and compares every output byte with the case.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "corpus_case.h"
#include "mxconform/subject.h"

namespace mxconform::corpus {

enum class Verdict { kPass, kFail, kNotSupported };
// "PASS", "FAIL" or "NOT SUPPORTED".
std::string_view name(Verdict verdict);

// An element whose code differs, inside a differing data byte.
struct ElementDifference {
  std::size_t index;               // row-major element index
  std::size_t row, col;            // in the tensor
  std::size_t group, column_block; // its block (g, c)
  std::string_view nibble;         // "low" or "high" for FP4, empty for FP8
  std::uint8_t expected_code, actual_code;
  ExpectedByte expected_e8m0;      // the case's E8M0 for the block
  std::uint8_t actual_e8m0;        // what the subject wrote there
};

// One output byte where the subject differs from the case.
struct ByteDifference {
  bool scale = false;              // a scale byte, else a data byte
  std::size_t offset = 0;          // in its buffer
  ExpectedByte expected;           // nullopt: must never be written
  std::uint8_t actual = 0;
  std::vector<ElementDifference> elements;  // data bytes: the elements whose codes differ
  std::size_t row = 0;                      // scale bytes: the physical (or logical) row
  std::optional<std::size_t> group;         // scale bytes: the block row it holds; none for unnamed rows
  std::size_t column_block = 0;
};
// One line: the byte, expected and actual, then its element(s), block(s) and E8M0.
std::string to_string(const ByteDifference& difference);

struct ReplayResult {
  Verdict verdict = Verdict::kPass;
  std::string reason;                      // not supported: the implementation's reason; fail: an exception
  std::vector<ByteDifference> differences; // the first `max_reported` data, then scale, differences
  std::size_t data_differences = 0;        // all of them
  std::size_t scale_differences = 0;
};

// Quantizes c.input with `subject` into buffers that start as the bitwise complement of every
// expected byte (0xFF where nothing may be written), so that an unwritten byte always differs.
ReplayResult replay_case(const CorpusCase& c, const Subject& subject, std::size_t max_reported = 8);

}  // namespace mxconform::corpus
