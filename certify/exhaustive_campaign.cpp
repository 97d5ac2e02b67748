#include "exhaustive_campaign.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "mxconform/bit_cast.h"
#include "oracle.h"

namespace mxconform::certify {
namespace {

float from_bits(std::uint32_t bits) { return bit_cast<float>(bits); }
std::uint32_t to_bits(float value) { return bit_cast<std::uint32_t>(value); }

float multiplier(int e8m0) { return from_bits(static_cast<std::uint32_t>(2 * Float32::kBias - e8m0) << Float32::kMantissaBits); }

constexpr std::size_t kLanes = 32;  // a SIMD chunk row: groups are padded to this

}  // namespace

float input_value(InputDtype dtype, std::uint16_t bits) {
  if (dtype == InputDtype::kBfloat16) return from_bits(static_cast<std::uint32_t>(bits) << 16);
  const int sign = bits >> 15;
  const int exponent = (bits >> Float16::kMantissaBits) & Float16::kExponentFieldMax;
  const int mantissa = bits & Float16::kMantissaMask;
  float magnitude;
  if (exponent == static_cast<int>(Float16::kExponentFieldMax)) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), Float16::kEmin - Float16::kMantissaBits);
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa + (1 << Float16::kMantissaBits)),
                           exponent - Float16::kBias - Float16::kMantissaBits);
  }
  return sign ? -magnitude : magnitude;
}

ExhaustiveCampaign::ExhaustiveCampaign(InputDtype input, OutputDtype output, EmaxMode mode, Fp8NanPolicy policy) {
  config_.input = input;
  config_.output = output;
  config_.emax_mode = mode;
  config_.fp8_nan = policy;
  config_.scale_layout = ScaleLayout::kLogical;
  fields_.resize(0x10000);
  anchor_of_field_.assign(256, -1);
  for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    fields_[bits] = static_cast<int>((to_bits(input_value(input, static_cast<std::uint16_t>(bits))) >> 23) & 0xFF);
    if ((bits & 0x8000) == 0) anchor_of_field_[fields_[bits]] = static_cast<int>(bits);
  }
  for (int e8m0 = 1; e8m0 <= 255 - emax_bias(config_); ++e8m0) {
    if (anchor_of_field_[anchor_field(e8m0)] >= 0) reachable_.push_back(e8m0);
  }
}

int ExhaustiveCampaign::anchor_field(int e8m0) const {
  int field = e8m0 + emax_bias(config_);
  if (e8m0 == 1) {
    while (field > 0 && anchor_of_field_[field] < 0) --field;
  }
  return field;
}

std::uint8_t ExhaustiveCampaign::expected_code(std::uint32_t y_bits) {
  auto [it, inserted] = expected_.try_emplace(y_bits, 0);
  if (inserted) {
    it->second = static_cast<std::uint8_t>(
        oracle::narrow(oracle::decode(Float32::info(), y_bits), info(config_.output).element, config_.fp8_nan));
  }
  return it->second;
}

ExhaustiveTensor ExhaustiveCampaign::tensor(int e8m0) {
  const int field = anchor_field(e8m0);
  const std::uint16_t anchor = static_cast<std::uint16_t>(anchor_of_field_[field]);
  const float m = multiplier(e8m0);
  const FormatInfo format = element_format(config_.output);
  const double subnormal_low = std::ldexp(1.0, -format.bias - format.mantissa_bits);
  const double normal_low = std::ldexp(1.0, 1 - format.bias);

  std::vector<std::uint16_t> groups[2];
  for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    if (fields_[bits] > field) continue;
    const double y = std::fabs(static_cast<double>(input_value(config_.input, static_cast<std::uint16_t>(bits)) * m));
    const bool subnormal_input =
        config_.input == InputDtype::kFloat16 && (bits & Float16::kExponentMask) == 0 && (bits & Float16::kMantissaMask) != 0;
    groups[subnormal_input || (y >= subnormal_low && y < normal_low) ? 1 : 0].push_back(static_cast<std::uint16_t>(bits));
  }
  std::vector<std::uint16_t> slots;
  for (const auto& group : groups) {
    slots.insert(slots.end(), group.begin(), group.end());
    slots.resize((slots.size() + kLanes - 1) / kLanes * kLanes, 0);
  }
  const std::size_t candidate_rows = kBlockRows - 1;
  std::size_t columns = (slots.size() + candidate_rows - 1) / candidate_rows;
  columns = (columns + kLanes - 1) / kLanes * kLanes;

  ExhaustiveTensor t;
  t.config = config_;
  t.config.partitions = kBlockRows;
  t.config.free = columns;
  validate(t.config);
  t.e8m0 = e8m0;
  t.input.assign(kBlockRows * columns, 0);
  for (std::size_t b = 0; b < columns / kBlockCols; ++b) t.input[b * kBlockCols] = anchor;
  std::copy(slots.begin(), slots.end(), t.input.begin() + static_cast<std::ptrdiff_t>(columns));
  t.codes.resize(t.input.size());
  for (std::size_t k = 0; k < t.input.size(); ++k) {
    t.codes[k] = expected_code(to_bits(input_value(config_.input, t.input[k]) * m));
  }
  // Packing with stride 0, high parity 1: element 2j in the low nibble.
  if (is_fp4(config_.output)) {
    t.expected_data.resize(t.codes.size() / 2);
    for (std::size_t j = 0; j < t.expected_data.size(); ++j) {
      t.expected_data[j] = static_cast<std::uint8_t>(t.codes[2 * j] | (t.codes[2 * j + 1] << 4));
    }
  } else {
    t.expected_data = t.codes;
  }
  t.expected_scale.assign(columns / kBlockCols, static_cast<std::uint8_t>(e8m0));
  return t;
}

}  // namespace mxconform::certify
