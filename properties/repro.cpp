#include "repro.h"

#include <cstdio>
#include <limits>
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

Comparison compare(const Repro& repro) {
  CompareOptions every;
  every.max_reported = std::numeric_limits<std::size_t>::max();
  every.check_unnamed_rows = true;
  return mxconform::compare(repro.config, repro.input, repro.expected.data, repro.expected.scale, repro.actual.data,
                            repro.actual.scale, every);
}

std::size_t differing_elements(const Comparison& comparison) {
  std::size_t count = 0;
  for (const Difference& d : comparison.data) count += d.elements.size();
  return count;
}

std::string format_repro(const Repro& repro) {
  const QuantizeConfig& config = repro.config;
  const Geometry g = geometry(config);
  const Comparison comparison = compare(repro);
  const Difference* first_data = comparison.first_data();
  const Difference* first_scale = comparison.first_scale();
  const ElementDifference* e = first_data ? &first_data->elements.front() : nullptr;
  std::ostringstream out;
  out << "  subject   " << repro.subject << "\n";
  out << "  config    " << describe(config) << "\n";
  out << "  expected  " << repro.expectation << "\n";
  if (!repro.detail.empty()) out << "  detail    " << repro.detail << "\n";
  if (e) {
    out << "  first difference: element [" << e->index / config.free << "][" << e->index % config.free << "] (flat "
        << e->index << ", input 0x" << hex(repro.input[e->index], 4) << " = "
        << value_text(config.input, repro.input[e->index]) << ") of block (" << e->group << ", " << e->column_block
        << "): code expected 0x" << hex(e->expected_code, 2) << ", actual 0x" << hex(e->actual_code, 2)
        << "; the block's E8M0 expected 0x" << hex(e->expected_e8m0, 2) << ", actual 0x" << hex(e->actual_e8m0, 2)
        << "\n";
  } else if (first_scale) {
    out << "  first difference: scale byte " << first_scale->offset << " (row " << first_scale->row << ", "
        << (first_scale->named_row
                ? "block (" + std::to_string(first_scale->group) + ", " + std::to_string(first_scale->column_block) + ")"
                : std::string("a row no slot names, which must stay unwritten"))
        << "): expected 0x" << hex(first_scale->expected, 2) << ", actual 0x" << hex(first_scale->actual, 2) << "\n";
  } else {
    out << "  first difference: none in the bytes\n";
  }
  out << "  differing " << differing_elements(comparison) << " of " << config.partitions * config.free
      << " elements, " << comparison.scale_differences << " of " << g.scale_bytes << " scale bytes\n";

  // The block of the first difference.
  const std::size_t block_row = e ? e->group : first_scale ? first_scale->group : 0;
  const std::size_t block_col = e ? e->column_block : first_scale ? first_scale->column_block : 0;
  const std::size_t elements = config.partitions * config.free;
  const bool whole = elements <= kWholeTensorElements;
  // The rows and columns shown: everything, or the block of the first difference.
  const std::size_t row_begin = whole ? 0 : block_row * g.block_height;
  const std::size_t row_end = whole ? config.partitions : row_begin + g.block_height;
  const std::size_t col_begin = whole ? 0 : block_col * g.block_width;
  const std::size_t col_end = whole ? config.free : col_begin + g.block_width;
  const std::string where =
      whole ? "" : ", block (" + std::to_string(block_row) + ", " + std::to_string(block_col) + ") only";
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
  const std::size_t scale_row_begin = g.scale_bytes <= kWholeScaleBytes || (!e && !first_scale) ? 0
                                      : e ? scale_row(config, block_row)
                                          : first_scale->row;
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
