#include "repro.h"

#include <cstdio>
#include <sstream>

#include "input_value.h"
#include "mxconform/scale_layout.h"

namespace mxconform::properties {
namespace {

constexpr std::size_t kWholeTensorElements = 512;  // print tensors up to this size whole
constexpr std::size_t kWholeScaleBytes = 64;

std::string hex(unsigned value, int digits) {
  char text[16];
  std::snprintf(text, sizeof text, "%0*X", digits, value);
  return text;
}

// The logical scale row held by physical row `row`, or nothing when no slot names it.
bool named_row(const QuantizeConfig& config, std::size_t row, std::size_t* logical) {
  const Geometry g = geometry(config);
  for (std::size_t i = 0; i < g.block_rows; ++i) {
    if (scale_row(config, i) == row) {
      *logical = i;
      return true;
    }
  }
  return false;
}

// Rows [row_begin, row_end) and columns [col_begin, col_end) of a row-major byte tensor of
// `row_size` columns, with entries where `actual` differs from `expected` bracketed.
void print_bytes(std::ostream& out, const std::vector<std::uint8_t>& shown, const std::vector<std::uint8_t>& other,
                 std::size_t row_size, std::size_t row_begin, std::size_t row_end, std::size_t col_begin,
                 std::size_t col_end) {
  for (std::size_t r = row_begin; r < row_end; ++r) {
    out << "    " << (r < 10 ? "  " : r < 100 ? " " : "") << r << ":";
    for (std::size_t c = col_begin; c < col_end; ++c) {
      const std::size_t i = r * row_size + c;
      const bool differs = shown[i] != other[i];
      out << (differs ? " [" : "  ") << hex(shown[i], 2) << (differs ? "]" : " ");
    }
    out << "\n";
  }
}

void print_input(std::ostream& out, const Repro& repro, std::size_t row_begin, std::size_t row_end,
                 std::size_t col_begin, std::size_t col_end) {
  for (std::size_t r = row_begin; r < row_end; ++r) {
    out << "    " << (r < 10 ? "  " : r < 100 ? " " : "") << r << ":";
    for (std::size_t c = col_begin; c < col_end; ++c) out << " " << hex(repro.input[r * repro.config.free + c], 4);
    out << "\n";
  }
}

std::string value_text(InputDtype dtype, std::uint16_t bits) {
  if (is_nan(dtype, bits)) return is_negative(dtype, bits) ? "-NaN" : "NaN";
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value_of(dtype, bits));
  return text;
}

}  // namespace

Difference first_difference(const Repro& repro) {
  const QuantizeConfig& config = repro.config;
  const Geometry g = geometry(config);
  Difference d;
  const auto expected_codes = element_codes(config, repro.expected.data);
  const auto actual_codes = element_codes(config, repro.actual.data);
  for (std::size_t k = 0; k < expected_codes.size(); ++k) {
    if (expected_codes[k] == actual_codes[k]) continue;
    if (d.differing_elements++ > 0) continue;
    d.kind = Difference::Kind::kElement;
    d.element = k;
    d.block_row = k / config.free / kBlockRows;
    d.block_col = k % config.free / kBlockCols;
    d.expected_code = expected_codes[k];
    d.actual_code = actual_codes[k];
  }
  for (std::size_t i = 0; i < g.scale_bytes; ++i) {
    if (repro.expected.scale[i] == repro.actual.scale[i]) continue;
    if (d.differing_scale_bytes++ > 0 || d.kind != Difference::Kind::kNone) continue;
    d.kind = Difference::Kind::kScale;
    d.scale_byte = i;
    std::size_t logical = 0;
    d.named_row = named_row(config, i / g.block_cols, &logical);
    d.block_row = logical;
    d.block_col = i % g.block_cols;
  }
  if (d.kind != Difference::Kind::kNone && d.named_row) {
    d.expected_e8m0 = block_scale(config, repro.expected.scale, d.block_row, d.block_col);
    d.actual_e8m0 = block_scale(config, repro.actual.scale, d.block_row, d.block_col);
  }
  return d;
}

std::string format_repro(const Repro& repro) {
  const QuantizeConfig& config = repro.config;
  const Geometry g = geometry(config);
  const Difference d = first_difference(repro);
  std::ostringstream out;
  out << "  subject   " << repro.subject << "\n";
  out << "  config    " << describe(config) << "\n";
  out << "  expected  " << repro.expectation << "\n";
  if (!repro.detail.empty()) out << "  detail    " << repro.detail << "\n";
  switch (d.kind) {
    case Difference::Kind::kNone: out << "  first difference: none in the bytes\n"; break;
    case Difference::Kind::kElement:
      out << "  first difference: element [" << d.element / config.free << "][" << d.element % config.free << "] (flat "
          << d.element << ", input 0x" << hex(repro.input[d.element], 4) << " = "
          << value_text(config.input, repro.input[d.element]) << ") of block (" << d.block_row << ", " << d.block_col
          << "): code expected 0x" << hex(d.expected_code, 2) << ", actual 0x" << hex(d.actual_code, 2)
          << "; the block's E8M0 expected 0x" << hex(d.expected_e8m0, 2) << ", actual 0x" << hex(d.actual_e8m0, 2)
          << "\n";
      break;
    case Difference::Kind::kScale:
      out << "  first difference: scale byte " << d.scale_byte << " (row " << d.scale_byte / g.block_cols << ", "
          << (d.named_row ? "block (" + std::to_string(d.block_row) + ", " + std::to_string(d.block_col) + ")"
                          : std::string("a row no slot names, which must stay unwritten"))
          << "): expected 0x" << hex(repro.expected.scale[d.scale_byte], 2) << ", actual 0x"
          << hex(repro.actual.scale[d.scale_byte], 2) << "\n";
      break;
  }
  out << "  differing " << d.differing_elements << " of " << config.partitions * config.free << " elements, "
      << d.differing_scale_bytes << " of " << g.scale_bytes << " scale bytes\n";

  const std::size_t elements = config.partitions * config.free;
  const bool whole = elements <= kWholeTensorElements;
  // The rows and columns shown: everything, or the block of the first difference.
  const std::size_t row_begin = whole ? 0 : d.block_row * kBlockRows;
  const std::size_t row_end = whole ? config.partitions : row_begin + kBlockRows;
  const std::size_t col_begin = whole ? 0 : d.block_col * kBlockCols;
  const std::size_t col_end = whole ? config.free : col_begin + kBlockCols;
  const std::string where =
      whole ? "" : ", block (" + std::to_string(d.block_row) + ", " + std::to_string(d.block_col) + ") only";
  out << "  input (" << name(config.input) << " bits) [" << config.partitions << ", " << config.free << "]" << where
      << ":\n";
  print_input(out, repro, row_begin, row_end, col_begin, col_end);
  if (whole) {
    out << "  expected data (bytes) [" << config.partitions << ", " << g.data_row_bytes << "]:\n";
    print_bytes(out, repro.expected.data, repro.actual.data, g.data_row_bytes, 0, config.partitions, 0,
                g.data_row_bytes);
    out << "  actual data:\n";
    print_bytes(out, repro.actual.data, repro.expected.data, g.data_row_bytes, 0, config.partitions, 0,
                g.data_row_bytes);
  } else {  // element codes of the block: with a lane remap its nibbles may sit anywhere
    const auto expected_codes = element_codes(config, repro.expected.data);
    const auto actual_codes = element_codes(config, repro.actual.data);
    out << "  expected element codes" << where << ":\n";
    print_bytes(out, expected_codes, actual_codes, config.free, row_begin, row_end, col_begin, col_end);
    out << "  actual element codes:\n";
    print_bytes(out, actual_codes, expected_codes, config.free, row_begin, row_end, col_begin, col_end);
  }
  const std::size_t scale_row_begin =
      g.scale_bytes <= kWholeScaleBytes || d.kind == Difference::Kind::kNone
          ? 0
          : (d.kind == Difference::Kind::kScale
                 ? d.scale_byte / g.block_cols
                 : scale_row(config, d.block_row));
  const std::size_t scale_row_end = g.scale_bytes <= kWholeScaleBytes ? g.scale_rows : scale_row_begin + 1;
  out << "  expected scale (" << name(config.scale_layout) << " layout) [" << g.scale_rows << ", " << g.block_cols
      << "]" << (g.scale_bytes <= kWholeScaleBytes ? "" : ", row " + std::to_string(scale_row_begin) + " only")
      << ":\n";
  print_bytes(out, repro.expected.scale, repro.actual.scale, g.block_cols, scale_row_begin, scale_row_end, 0,
              g.block_cols);
  out << "  actual scale:\n";
  print_bytes(out, repro.actual.scale, repro.expected.scale, g.block_cols, scale_row_begin, scale_row_end, 0,
              g.block_cols);
  return out.str();
}

}  // namespace mxconform::properties
