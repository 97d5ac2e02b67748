#include "element_gen.h"

#include <algorithm>

#include "input_value.h"
#include "mxconform/formats.h"

namespace mxconform::properties {
namespace {

void append_unique(std::vector<std::uint32_t>& values, std::uint32_t value) {
  if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
}

int bias_of(InputDtype dtype) { return dtype == InputDtype::kBfloat16 ? Bfloat16::kBias : Float16::kBias; }

// How far either side of the bias the "prescale band" reaches: at E8M0 127 the prescale is x 1,
// so the element grids (up to e5m2's 2^15 and down to its 2^-16) are reached from these binades.
constexpr int kPrescaleBand = E5M2::kEmax + E5M2::kBias + E5M2::kMantissaBits;

// One table per input dtype, built on first use. Each call site passes its own lambda type, so
// each gets its own pair of tables.
template <typename Build>
const std::vector<std::uint16_t>& table_for(InputDtype dtype, Build build) {
  static const std::vector<std::uint16_t> kBfloat16 = build(InputDtype::kBfloat16);
  static const std::vector<std::uint16_t> kFloat16 = build(InputDtype::kFloat16);
  return dtype == InputDtype::kBfloat16 ? kBfloat16 : kFloat16;
}

}  // namespace

std::vector<std::uint32_t> significand_patterns(int bits) {
  const std::uint32_t all_ones = (1u << bits) - 1;
  std::vector<std::uint32_t> patterns;
  append_unique(patterns, 0);
  append_unique(patterns, all_ones);
  for (int i = 0; i < bits; ++i) append_unique(patterns, 1u << i);                      // walking one
  for (int i = 0; i < bits; ++i) append_unique(patterns, all_ones ^ (1u << i));         // walking zero
  for (int i = 1; i <= bits; ++i) append_unique(patterns, all_ones ^ (all_ones >> i));  // leading ones
  for (int i = 1; i <= bits; ++i) append_unique(patterns, all_ones >> (bits - i));      // trailing ones
  return patterns;
}

std::vector<std::uint32_t> exponent_fields(InputDtype dtype) {
  const auto bias = static_cast<std::uint32_t>(bias_of(dtype));
  const std::uint32_t all_ones = exponent_field_max(dtype);
  std::vector<std::uint32_t> fields;
  append_unique(fields, bias);
  append_unique(fields, 0);
  append_unique(fields, 1);
  append_unique(fields, 2);
  for (int d = 1; d <= kPrescaleBand; ++d) {
    if (static_cast<int>(bias) - d > 0) append_unique(fields, bias - d);
    if (bias + d < all_ones) append_unique(fields, bias + d);
  }
  append_unique(fields, all_ones / 4);
  append_unique(fields, all_ones - all_ones / 4);
  append_unique(fields, all_ones - 2);
  append_unique(fields, all_ones - 1);  // the largest finite binade
  append_unique(fields, all_ones);      // Inf and NaN
  return fields;
}

const std::vector<std::uint16_t>& testfloat_elements(InputDtype dtype) {
  return table_for(dtype, [](InputDtype d) {
    std::vector<std::uint16_t> elements;
    const auto significands = significand_patterns(mantissa_bits(d));
    // Significand-major, so that the first entries are the powers of two of every binade.
    for (std::uint32_t significand : significands) {
      for (std::uint32_t field : exponent_fields(d)) {
        if (field == 0 && significand == 0) continue;  // zero is the block recipes' entry 0
        elements.push_back(make_bits(d, false, field, significand));
      }
    }
    return elements;
  });
}

const std::vector<std::uint16_t>& subnormal_elements(InputDtype dtype) {
  return table_for(dtype, [](InputDtype d) {
    std::vector<std::uint16_t> elements;
    for (std::uint32_t significand : significand_patterns(mantissa_bits(d))) {
      elements.push_back(make_bits(d, false, 0, significand));
    }
    return elements;
  });
}

const std::vector<std::uint16_t>& nan_elements(InputDtype dtype) {
  return table_for(dtype, [](InputDtype d) {
    const int m = mantissa_bits(d);
    const std::uint32_t quiet = 1u << (m - 1);
    std::vector<std::uint32_t> payloads = {quiet};
    for (std::uint32_t pattern : significand_patterns(m)) {
      if (pattern != 0) append_unique(payloads, pattern);
    }
    std::vector<std::uint16_t> elements;
    for (std::uint32_t payload : payloads) elements.push_back(make_bits(d, false, exponent_field_max(d), payload));
    return elements;
  });
}

std::uint16_t inf_element(InputDtype dtype) { return make_bits(dtype, false, exponent_field_max(dtype), 0); }

}  // namespace mxconform::properties
