#include "mxconform/difference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "mxconform/error.h"
#include "mxconform/formats.h"
#include "mxconform/lane_remap.h"
#include "mxconform/profile.h"
#include "mxconform/scale_layout.h"

namespace mxconform {
namespace {

constexpr unsigned kNibbleBits = 4;
constexpr std::uint8_t kNibbleMask = 0b1111;
constexpr std::uint8_t kClampLowE8m0 = 1;        // the smallest E8M0 the scale rule gives
constexpr std::uint8_t kLargestFiniteE8m0 = 254; // the largest non-NaN E8M0

struct InputValue {
  bool nan = false;
  bool inf = false;
  double value = 0;  // finite inputs: exact
};

// An input element's value, from its format's fields (bfloat16 or float16: exact in a double).
InputValue decode(InputDtype dtype, std::uint16_t bits) {
  const FormatInfo f = input_format(dtype);
  const std::uint32_t exponent_field = (bits & f.magnitude_mask) >> f.mantissa_bits;
  const std::uint32_t mantissa = bits & ((1u << f.mantissa_bits) - 1);
  const std::uint32_t all_ones = (1u << f.exponent_bits) - 1;
  InputValue out;
  if (exponent_field == all_ones) {
    (mantissa == 0 ? out.inf : out.nan) = true;
    return out;
  }
  const double significand = exponent_field == 0 ? mantissa : mantissa + static_cast<double>(1u << f.mantissa_bits);
  const int exponent = (exponent_field == 0 ? 1 : static_cast<int>(exponent_field)) - f.bias - f.mantissa_bits;
  out.value = std::ldexp(significand, exponent) * ((bits & f.sign_mask) != 0 ? -1 : 1);
  return out;
}

// The block row a scale row holds, or none for a physical row no slot names.
std::optional<std::size_t> group_of_scale_row(const QuantizeConfig& config, std::size_t row) {
  if (config.scale_layout == ScaleLayout::kLogical) return row;
  const std::size_t within = row % kScaleSlotGroupStride;
  if (within >= kScaleSlotGroupRows) return std::nullopt;
  return row / kScaleSlotGroupStride * kScaleSlotGroupRows + within;
}

std::string hex(unsigned value, int digits) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%0*X", digits, value);
  return text;
}

// The dtypes, knobs, profile and block shape of a configuration, without its shape. The profile
// and block shape are left out for neuron with 8x4 blocks (every certificate before profiles).
std::string knobs(const QuantizeConfig& c) {
  std::string out = "input=" + std::string(name(c.input)) + " output=" + std::string(name(c.output)) +
                    " emax_mode=" + std::string(name(c.emax_mode));
  if (c.profile != ProfileId::kNeuron || c.block_shape != BlockShape::k8x4) {
    out += " profile=" + std::string(name(c.profile)) + " block=" + std::string(name(c.block_shape));
  }
  if (is_fp4(c.output)) {
    out += " lane_stride=" + std::to_string(c.fp4_lane_stride) + " high_parity=" + std::to_string(c.fp4_high_parity);
  } else {
    out += " fp8_nan=" + std::string(name(c.fp8_nan));
  }
  return out + " scale_layout=" + std::string(name(c.scale_layout));
}

}  // namespace

std::string_view name(BlockClass value) {
  switch (value) {
    case BlockClass::kNan: return "nan-block";
    case BlockClass::kInf: return "inf-block";
    case BlockClass::kZero: return "zero-block";
    case BlockClass::kClampLow: return "e8m0-1-block";
    case BlockClass::kLargestE8m0: return "e8m0-254-block";
    case BlockClass::kOrdinary: return "ordinary-block";
  }
  return "?";
}

std::string_view name(ElementClass value) {
  switch (value) {
    case ElementClass::kNotElement: return "scale";
    case ElementClass::kNan: return "nan";
    case ElementClass::kInf: return "inf";
    case ElementClass::kZero: return "zero";
    case ElementClass::kSaturation: return "saturation";
    case ElementClass::kTie: return "tie";
    case ElementClass::kOrdinary: return "ordinary";
  }
  return "?";
}

BlockClass classify_block(const QuantizeConfig& config, const std::vector<std::uint16_t>& input, std::size_t group,
                          std::size_t column_block, std::uint8_t e8m0) {
  bool nan = false, inf = false, all_zero = true;
  const BlockExtent block = extent(config.block_shape);
  for (std::size_t r = 0; r < block.rows; ++r) {
    for (std::size_t c = 0; c < block.cols; ++c) {
      const std::size_t k = (group * block.rows + r) * config.free + column_block * block.cols + c;
      if (k >= input.size()) continue;
      const InputValue v = decode(config.input, input[k]);
      nan = nan || v.nan;
      inf = inf || v.inf;
      all_zero = all_zero && !v.nan && !v.inf && v.value == 0;
    }
  }
  if (nan) return BlockClass::kNan;
  if (inf) return BlockClass::kInf;
  if (all_zero) return BlockClass::kZero;
  if (e8m0 == kClampLowE8m0) return BlockClass::kClampLow;
  if (e8m0 == kLargestFiniteE8m0) return BlockClass::kLargestE8m0;
  return BlockClass::kOrdinary;
}

ElementClass classify_element(const QuantizeConfig& config, std::uint16_t input_bits, std::uint8_t e8m0) {
  const InputValue v = decode(config.input, input_bits);
  if (v.nan) return ElementClass::kNan;
  if (v.inf) return ElementClass::kInf;
  if (v.value == 0) return ElementClass::kZero;
  if (e8m0 == E8M0::kNanCode) return ElementClass::kOrdinary;
  // The scaled magnitude, exact in a double (an input's 11 significant bits times a power of two).
  const FormatInfo f = element_format(config.output);
  const double x = std::ldexp(std::fabs(v.value), E8M0::kBias - e8m0);
  if (x > f.max_value) return ElementClass::kSaturation;
  // The spacing of output values at x: 2^(exponent - mantissa bits), the exponent no lower than
  // the smallest normal's.
  const int emin = 1 - f.bias;
  const int exponent = std::max(emin, std::ilogb(x));
  const double steps = std::ldexp(x, f.mantissa_bits - exponent);
  return steps - std::floor(steps) == 0.5 ? ElementClass::kTie : ElementClass::kOrdinary;
}

std::string Difference::signature() const {
  return std::string(scale ? "scale byte" : "data byte") + ", " + std::string(name(block_class)) + ", " +
         std::string(name(element_class)) + ", " + knobs(config);
}

std::string Difference::to_string() const {
  std::string text = std::string(scale ? "scale" : "data") + " byte " + std::to_string(offset) + ": expected " +
                     hex(expected, 2) + ", actual " + hex(actual, 2) + "; block (" + std::to_string(group) + ", " +
                     std::to_string(column_block) + "), " + std::string(name(block_class));
  if (element) {
    text += "; element " + std::to_string(*element) + " (row " + std::to_string(*element / config.free) + ", column " +
            std::to_string(*element % config.free) + "), input " + hex(input_bits, 4) + ", " +
            std::string(name(element_class));
  }
  return text + "; E8M0 expected " + hex(expected_e8m0, 2) + ", actual " + hex(actual_e8m0, 2);
}

std::vector<std::uint8_t> with_unspecified_from(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                                                const std::vector<std::uint8_t>& expected_scale,
                                                std::vector<std::uint8_t> expected_data,
                                                const std::vector<std::uint8_t>& actual_data) {
  const Geometry g = geometry(config);
  if (input.size() != config.partitions * config.free || expected_data.size() != g.data_bytes ||
      actual_data.size() != g.data_bytes || expected_scale.size() != g.scale_bytes) {
    return expected_data;
  }
  const Profile& contract = profile(config.profile);
  if (contract.negative_zero_sign_open && !is_fp4(config.output)) {
    constexpr std::uint16_t kNegativeZero = 0x8000;  // bfloat16 and float16 alike
    constexpr std::uint8_t kSign = 0x80;             // every FP8 format's sign bit
    for (std::size_t k = 0; k < input.size(); ++k) {
      if (input[k] == kNegativeZero && (actual_data[k] & ~kSign) == 0) expected_data[k] = actual_data[k];
    }
  }
  if (!is_fp4(config.output) || contract.specials != SpecialsRule::kBlockNan) return expected_data;
  for (std::size_t i = 0; i < g.data_bytes; ++i) {
    for (std::size_t position = 2 * i; position < 2 * i + 2; ++position) {
      const std::size_t k = config.fp4_lane_stride == 0 ? position : lane_remap(position, config.fp4_lane_stride);
      const std::size_t group = k / config.free / g.block_height, column_block = k % config.free / g.block_width;
      if (expected_scale[scale_row(config, group) * g.block_cols + column_block] != E8M0::kNanCode) continue;
      const bool high = static_cast<int>(position % 2) == config.fp4_high_parity;
      const std::uint8_t mask = high ? static_cast<std::uint8_t>(kNibbleMask << kNibbleBits) : kNibbleMask;
      expected_data[i] = static_cast<std::uint8_t>((expected_data[i] & ~mask) | (actual_data[i] & mask));
    }
  }
  return expected_data;
}

Comparison compare(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                   const std::vector<std::uint8_t>& specified_data, const std::vector<std::uint8_t>& expected_scale,
                   const std::vector<std::uint8_t>& actual_data, const std::vector<std::uint8_t>& actual_scale,
                   const CompareOptions& options) {
  const Geometry g = geometry(config);
  if (input.size() != config.partitions * config.free || specified_data.size() != g.data_bytes ||
      actual_data.size() != g.data_bytes || expected_scale.size() != g.scale_bytes ||
      actual_scale.size() != g.scale_bytes) {
    throw Error("compare: buffer sizes do not match the configuration " + describe(config));
  }
  const std::vector<std::uint8_t> expected_data = with_unspecified_from(config, input, expected_scale, specified_data, actual_data);
  const auto scale_offset = [&](std::size_t group, std::size_t column_block) {
    return scale_row(config, group) * g.block_cols + column_block;
  };
  Comparison out;
  for (std::size_t i = 0; i < g.scale_bytes; ++i) {
    const std::optional<std::size_t> group = group_of_scale_row(config, i / g.block_cols);
    if ((!group && !options.check_unnamed_rows) || expected_scale[i] == actual_scale[i]) continue;
    if (++out.scale_differences > options.max_reported) continue;
    Difference d;
    d.scale = true;
    d.offset = i;
    d.row = i / g.block_cols;
    d.named_row = group.has_value();
    d.group = group.value_or(0);
    d.column_block = i % g.block_cols;
    d.expected = d.expected_e8m0 = expected_scale[i];
    d.actual = d.actual_e8m0 = actual_scale[i];
    if (group) d.block_class = classify_block(config, input, d.group, d.column_block, d.expected_e8m0);
    d.config = config;
    out.scale.push_back(std::move(d));
  }
  const bool fp4 = is_fp4(config.output);
  const BlockExtent block = extent(config.block_shape);  // 8x4, 1x32 or 32x1
  const auto element_at = [&](std::size_t index, std::optional<bool> high_nibble, std::uint8_t expected_code,
                              std::uint8_t actual_code) {
    ElementDifference e;
    e.index = index;
    e.group = index / config.free / block.rows;
    e.column_block = index % config.free / block.cols;
    e.high_nibble = high_nibble;
    e.expected_code = expected_code;
    e.actual_code = actual_code;
    e.expected_e8m0 = expected_scale[scale_offset(e.group, e.column_block)];
    e.actual_e8m0 = actual_scale[scale_offset(e.group, e.column_block)];
    return e;
  };
  for (std::size_t i = 0; i < g.data_bytes; ++i) {
    if (expected_data[i] == actual_data[i]) continue;
    if (++out.data_differences > options.max_reported) continue;
    Difference d;
    d.offset = i;
    d.expected = expected_data[i];
    d.actual = actual_data[i];
    if (fp4) {
      // The byte's FP4 nibble positions 2i and 2i + 1 (the lane remap is an involution, so it
      // maps a position back to its element).
      for (std::size_t position = 2 * i; position < 2 * i + 2; ++position) {
        const bool high = static_cast<int>(position % 2) == config.fp4_high_parity;
        const auto nibble = [&](std::uint8_t byte) {
          return static_cast<std::uint8_t>(high ? byte >> kNibbleBits : byte & kNibbleMask);
        };
        if (nibble(d.expected) == nibble(d.actual)) continue;
        const std::size_t index = config.fp4_lane_stride == 0 ? position : lane_remap(position, config.fp4_lane_stride);
        d.elements.push_back(element_at(index, high, nibble(d.expected), nibble(d.actual)));
      }
    } else {
      d.elements.push_back(element_at(i, std::nullopt, d.expected, d.actual));
    }
    const ElementDifference& first = d.elements.front();
    d.element = first.index;
    d.input_bits = input[first.index];
    d.group = first.group;
    d.column_block = first.column_block;
    d.expected_e8m0 = first.expected_e8m0;
    d.actual_e8m0 = first.actual_e8m0;
    d.block_class = classify_block(config, input, d.group, d.column_block, d.expected_e8m0);
    d.element_class = classify_element(config, d.input_bits, d.expected_e8m0);
    d.config = config;
    out.data.push_back(std::move(d));
  }
  return out;
}

}  // namespace mxconform
