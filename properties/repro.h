#pragma once
// A failing case after shrinking, as plain data: enough to replay it, to print it, and to write
// it out as a corpus file. Every property that fails records one.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "quantize_case.h"

namespace mxconform::properties {

struct Repro {
  std::string property;     // e.g. "differential"
  std::string subject;      // the implementation's name
  std::string expectation;  // what `expected` is, e.g. "the oracle's output"
  std::string detail;       // the property's account of the failure when bytes alone do not tell it
  QuantizeConfig config;
  std::vector<std::uint16_t> input;  // P*F raw input bits, row-major
  Outputs expected;                  // data and scale buffers, as quantize() fills them
  Outputs actual;
};

// Where `actual` first departs from `expected`: an element code, else a scale byte.
struct Difference {
  enum class Kind { kNone, kElement, kScale };
  Kind kind = Kind::kNone;
  std::size_t element = 0;                   // kElement: row-major index
  std::size_t block_row = 0, block_col = 0;  // the element's block, or the scale byte's (kScale, named rows)
  std::uint8_t expected_code = 0, actual_code = 0;
  std::uint8_t expected_e8m0 = 0, actual_e8m0 = 0;  // the block's
  std::size_t scale_byte = 0;                       // kScale: index into the scale buffer
  bool named_row = true;                            // kScale: false for a physical row that no slot names
  std::size_t differing_elements = 0;
  std::size_t differing_scale_bytes = 0;
};
Difference first_difference(const Repro& repro);

// The repro as text: the configuration, the first difference (element, block and the block's
// E8M0), the input bits in hex and the expected and actual bytes, differing bytes in brackets.
// Small tensors (up to 512 elements) are printed whole; larger ones print the block of the first
// difference only.
std::string format_repro(const Repro& repro);

}  // namespace mxconform::properties
