#include "profile_quantize.h"

#include "element_memo.h"
#include "exact.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace mxconform::oracle {
namespace {

// RN to fp32 of a finite non-negative exact value (overflow to Inf).
Value to_fp32(bool negative, const Rational& magnitude) { return round_to_ieee(negative, magnitude, Float32::info()); }

int element_emax(ElementKind element) { return element_info(element).emax; }

int emax_bias_of(const QuantizeConfig& config) {
  const int emax = element_emax(info(config.output).element);
  return config.emax_mode == EmaxMode::kEmax ? emax : emax - 1;
}

bool has_nan(const std::vector<Value>& block) {
  return std::any_of(block.begin(), block.end(), [](const Value& v) { return v.is_nan(); });
}
bool has_inf(const std::vector<Value>& block) {
  return std::any_of(block.begin(), block.end(), [](const Value& v) { return v.is_inf(); });
}

// max |x| over the finite elements (the callers deal with NaN and Inf first).
Rational finite_amax(const std::vector<Value>& block) {
  Rational amax = 0;
  for (const Value& v : block) {
    if (v.is_finite() && v.magnitude > amax) amax = v.magnitude;
  }
  return amax;
}

constexpr int kFp32MantissaBits = Float32::kMantissaBits;
constexpr std::uint32_t kFp32MantissaMask = Float32::kMantissaMask;
constexpr int kFp32Bias = Float32::kBias;
constexpr int kFieldOfSpecials = static_cast<int>(Float32::kExponentFieldMax);
constexpr std::uint32_t kFp32InfBits = Float32::kInfCode;
constexpr std::uint32_t kFp32QuietNanBits = Float32::kExponentMask | (1u << (kFp32MantissaBits - 1));
constexpr int kLargestFiniteE8m0 = static_cast<int>(E8M0::kNanCode) - 1;  // 0xFE: 2^127
static_assert(kFp32InfBits == 0x7F80'0000u && kFp32QuietNanBits == 0x7FC0'0000u && kLargestFiniteE8m0 == 254);

// The biased E8M0 of the floor family (torchao FLOOR, CEIL, EVEN) for a finite amax.
int floor_family_e8m0(ScaleRule rule, const Rational& amax, ElementKind element) {
  std::uint32_t bits = fp32_magnitude_bits(amax);
  const int mbits = element_info(element).mantissa_bits;
  if (rule == ScaleRule::kEven) {
    const std::uint32_t sign_and_exponent = ~kFp32MantissaMask;
    bits = (bits + (1u << (kFp32MantissaBits - 1 - mbits))) & sign_and_exponent;
    // torchao tests the rounded amax for finiteness: one that carries into field 255 is Inf, and
    // the block is NaN (bf16 0x7F78 and up for e4m3, 0x7F70 for e5m2, 0x7F60 for FP4).
    if ((bits >> kFp32MantissaBits) == static_cast<std::uint32_t>(kFieldOfSpecials)) return E8M0::kNanCode;
  }
  int unbiased = static_cast<int>(bits >> kFp32MantissaBits) - kFp32Bias - element_emax(element);
  if (rule == ScaleRule::kCeil && (bits & kFp32MantissaMask) != 0) ++unbiased;
  unbiased = std::clamp(unbiased, -E8M0::kBias, E8M0::kBias + 1);
  return unbiased + E8M0::kBias;
}

}  // namespace

int rceil_e8m0(std::uint32_t fp32_bits, bool satfinite) {
  const int field = static_cast<int>((fp32_bits >> kFp32MantissaBits) & Float32::kExponentFieldMax);
  const std::uint32_t mantissa = fp32_bits & kFp32MantissaMask;
  const int largest_finite = kLargestFiniteE8m0;
  if (field == kFieldOfSpecials) {
    const bool inf = mantissa == 0;
    return satfinite && inf ? largest_finite : static_cast<int>(E8M0::kNanCode);
  }
  // A subnormal rounds up only above 2^-127, which E8M0 byte 0 denotes (half the subnormal range).
  const std::uint32_t half_subnormal = 1u << (kFp32MantissaBits - 1);
  const bool round_up = field == 0 ? mantissa > half_subnormal : mantissa != 0;
  if (satfinite && field == largest_finite) return largest_finite;
  return field + (round_up ? 1 : 0);
}

std::uint32_t narrow_with(const Value& y, ElementKind element, ElementRounding rounding, Overflow overflow) {
  const FormatInfo& format = element_info(element);
  const std::uint32_t sign = y.negative ? format.sign_mask : 0u;
  const std::vector<Rational>& values = finite_values(element);
  const auto max_code = static_cast<std::uint32_t>(values.size() - 1);
  if (y.is_nan()) return format.has_nan ? sign | format.nan_code : sign;
  const auto overflowed = [&] {
    if (overflow == Overflow::kSaturate || !format.has_nan) return sign | max_code;
    if (format.has_inf) return sign | (static_cast<std::uint32_t>((1 << format.exponent_bits) - 1) << format.mantissa_bits);
    return sign | format.nan_code;
  };
  if (y.is_inf()) return overflowed();
  const auto above = std::lower_bound(values.begin(), values.end(), y.magnitude);
  std::uint32_t lo, hi;
  Rational hi_value;
  if (above == values.end()) {
    // Past the largest finite value: the next grid point is one step of the top binade above it.
    lo = max_code;
    hi = max_code + 1;
    hi_value = values[max_code] + (values[max_code] - values[max_code - 1]);
  } else {
    hi = static_cast<std::uint32_t>(above - values.begin());
    if (*above == y.magnitude || hi == 0) return sign | hi;
    lo = hi - 1;
    hi_value = *above;
  }
  const Rational below_distance = y.magnitude - values[lo];
  const Rational above_distance = hi_value - y.magnitude;
  std::uint32_t code = lo;
  if (below_distance < above_distance) {
    code = lo;
  } else if (above_distance < below_distance) {
    code = hi;
  } else {
    switch (rounding) {
      case ElementRounding::kNearestEven: code = lo % 2 == 0 ? lo : hi; break;
      case ElementRounding::kTiesAway: code = hi; break;
      case ElementRounding::kTiesTowardZero: code = lo; break;
    }
  }
  if (code > max_code) return overflowed();
  return sign | code;
}

int profile_e8m0(const QuantizeConfig& config, const std::vector<Value>& block) {
  const Profile& contract = profile(config.profile);
  const ElementKind element = info(config.output).element;
  switch (contract.scale_rule) {
    case ScaleRule::kNeuronField: throw std::logic_error("oracle: the neuron rule lives in oracle.cpp");
    case ScaleRule::kGoldenField:
    case ScaleRule::kGoldenUnclipped: {
      int max_field = 0;
      for (const Value& v : block) max_field = std::max(max_field, fp32_exponent_field(v));
      const int exponent = max_field - emax_bias_of(config);
      if (contract.scale_rule == ScaleRule::kGoldenField) return std::clamp(exponent, 0, static_cast<int>(E8M0::kNanCode));
      constexpr int kByteValues = 256;
      return ((exponent % kByteValues) + kByteValues) % kByteValues;  // int64 stored as uint8
    }
    default: break;
  }
  // The amax rules. NaN and Inf first, by the profile's specials rule.
  if (contract.specials == SpecialsRule::kBlockNan && (has_nan(block) || has_inf(block))) {
    return E8M0::kNanCode;
  }
  if (contract.specials == SpecialsRule::kNanDroppedInfMax && has_inf(block)) {
    return kLargestFiniteE8m0;
  }
  const Rational amax = finite_amax(block);
  switch (contract.scale_rule) {
    case ScaleRule::kFloor:
    case ScaleRule::kCeil:
    case ScaleRule::kEven: return floor_family_e8m0(contract.scale_rule, amax, element);
    case ScaleRule::kRceil:
    case ScaleRule::kRceilSatfinite: {
      // descale = RN32(amax * RN32(1 / max)), both products in fp32.
      const Value reciprocal = to_fp32(false, Rational(1) / Rational(element_info(element).max_value));
      const Value descale = to_fp32(false, amax * reciprocal.magnitude);
      const std::uint32_t bits = descale.is_inf() ? kFp32InfBits : fp32_magnitude_bits(descale.magnitude);
      return rceil_e8m0(bits, contract.scale_rule == ScaleRule::kRceilSatfinite);
    }
    case ScaleRule::kLog2Floor: {
      const FormatInfo f32 = Float32::info();
      const Rational argument = amax == 0 ? power_of_two(1 - f32.bias) : amax;
      const int shared = std::max(floor_log2(argument) - element_emax(element), -E8M0::kBias);
      if (shared > E8M0::kBias) return E8M0::kNanCode;
      return shared + E8M0::kBias;
    }
    default: break;
  }
  throw std::logic_error("oracle: unknown scale rule");
}

namespace {

// The element codes of one block under the profile, given its E8M0 byte; `inputs` are the codes
// the block's values were decoded from. Each element's code is computed once per thread and then
// looked up (element_memo.h), keyed by everything it depends on: the profile, the input dtype and
// code, the E8M0 byte and the block's largest exponent field (the golden rules' divisor), the
// element kind and the EMAX mode.
std::vector<std::uint32_t> profile_codes(const QuantizeConfig& config, const std::vector<Value>& block,
                                         const std::vector<std::uint16_t>& inputs, int e8m0) {
  const Profile& contract = profile(config.profile);
  const ElementKind element = info(config.output).element;
  const FormatInfo& format = element_info(element);
  std::vector<std::uint32_t> codes;
  codes.reserve(block.size());
  const bool golden = contract.scale_rule == ScaleRule::kGoldenField || contract.scale_rule == ScaleRule::kGoldenUnclipped;
  int block_max_field = 0;  // the golden rules' divisor; the other rules' codes depend on e8m0 only
  if (golden) {
    for (const Value& v : block) block_max_field = std::max(block_max_field, fp32_exponent_field(v));
  }
  thread_local ElementMemo memo;
  const auto memoized = [&](std::size_t i, const auto& compute) {
    const MemoKey key = MemoKey()
                            .add(static_cast<std::uint64_t>(config.profile), 5)
                            .add(static_cast<std::uint64_t>(config.input), 1)
                            .add(inputs[i], 16)
                            .add(static_cast<std::uint64_t>(e8m0), 8)
                            .add(static_cast<std::uint64_t>(block_max_field), 8)
                            .add(static_cast<std::uint64_t>(element), 2)
                            .add(static_cast<std::uint64_t>(config.emax_mode), 1);
    return memo.get(key.value(), [&] { return compute(block[i]); });
  };
  const auto nan_code = [&](bool negative) {
    if (!format.has_nan) return negative ? format.sign_mask : 0u;  // FP4: signed zero (Fp4NanCode::kSignedZero)
    return (negative ? format.sign_mask : 0u) | format.nan_code;
  };
  if (golden) {
    // x / 2^(max field - emaxBias - 127) in float64 (exact here), clipped to +-max, to fp32, cast RNE.
    const Rational divisor = power_of_two(block_max_field - emax_bias_of(config) - kFp32Bias);
    const Rational max_value(format.max_value);
    for (std::size_t i = 0; i < block.size(); ++i) {
      codes.push_back(memoized(i, [&](const Value& x) {
        if (x.is_nan()) return nan_code(x.negative);
        const Rational clipped = x.is_inf() ? max_value : std::min(Rational(x.magnitude / divisor), max_value);
        return narrow_with(to_fp32(x.negative, clipped), element, contract.rounding, contract.overflow);
      }));
    }
    return codes;
  }
  if (e8m0 == static_cast<int>(E8M0::kNanCode)) {
    // Every element is NaN: the reciprocal of the NaN scale is NaN (torchao), 2^NaN (microxcaling).
    for (const Value& x : block) codes.push_back(nan_code(x.is_nan() && x.negative));
    return codes;
  }
  const bool exact_division = contract.scale_rule == ScaleRule::kLog2Floor;
  const Rational multiplier = power_of_two(E8M0::kBias - e8m0);
  for (std::size_t i = 0; i < block.size(); ++i) {
    codes.push_back(memoized(i, [&](const Value& x) {
      if (x.is_nan()) return nan_code(contract.specials == SpecialsRule::kNanDroppedInfMax ? false : x.negative);
      Value y;
      if (x.is_inf()) {
        y = x;
      } else if (exact_division) {
        // microxcaling divides by 2^shared in fp32, exact but for the sign of a quotient that
        // rounds to zero (at most 2^-150): its torch.sign(-0.0) is 0, so -0 and such quotients
        // come out +0; every other quotient is exact or far below the element's smallest code.
        y.magnitude = x.magnitude * multiplier;
        y.negative = x.negative && y.magnitude > power_of_two(-(kFp32Bias + kFp32MantissaBits));  // 2^-150
      } else {
        y = to_fp32(x.negative, x.magnitude * multiplier);  // x * fp32 reciprocal, rounded to fp32
      }
      return narrow_with(y, element, contract.rounding, contract.overflow);
    }));
  }
  return codes;
}

}  // namespace

void quantize_profile(const QuantizeConfig& config, const std::uint16_t* input, std::uint8_t* data,
                      std::uint8_t* scale) {
  validate(config);
  const Geometry g = geometry(config);
  const std::size_t f = config.free;
  const FormatInfo in_format = input_format(config.input);
  const ElementKind element = info(config.output).element;
  std::vector<std::uint32_t> codes(config.partitions * f);
  for (std::size_t br = 0; br < g.block_rows; ++br) {
    for (std::size_t bc = 0; bc < g.block_cols; ++bc) {
      std::vector<Value> block;
      std::vector<std::uint16_t> inputs;
      std::vector<std::size_t> where;
      for (std::size_t row = br * g.block_height; row < (br + 1) * g.block_height; ++row) {
        for (std::size_t col = bc * g.block_width; col < (bc + 1) * g.block_width; ++col) {
          inputs.push_back(input[row * f + col]);
          block.push_back(decode(in_format, inputs.back()));
          where.push_back(row * f + col);
        }
      }
      const int e8m0 = profile_e8m0(config, block);
      const std::vector<std::uint32_t> block_codes = profile_codes(config, block, inputs, e8m0);
      for (std::size_t i = 0; i < block.size(); ++i) codes[where[i]] = block_codes[i];
      const std::size_t row = config.scale_layout == ScaleLayout::kPhysical ? physical_scale_row(br) : br;
      scale[row * g.block_cols + bc] = static_cast<std::uint8_t>(e8m0);
    }
  }
  if (element == ElementKind::kFp4E2m1) {
    std::fill(data, data + g.data_bytes, 0);
    for (std::size_t k = 0; k < codes.size(); ++k) {
      const std::size_t position = nibble_position(k, config.fp4_lane_stride);
      const bool high = static_cast<int>(position % 2) == config.fp4_high_parity;
      data[position / 2] |= static_cast<std::uint8_t>(high ? codes[k] << 4 : codes[k]);
    }
  } else {
    for (std::size_t k = 0; k < codes.size(); ++k) data[k] = static_cast<std::uint8_t>(codes[k]);
  }
}

void dequantize_profile(const QuantizeConfig& config, const std::uint8_t* data, const std::uint8_t* scale,
                        float* output) {
  validate(config);
  const Geometry g = geometry(config);
  const std::size_t f = config.free;
  const FormatInfo format = element_format(config.output);
  const bool fp4 = is_fp4(config.output);
  for (std::size_t row = 0; row < config.partitions; ++row) {
    const std::size_t br = row / g.block_height;
    const std::size_t scale_row = config.scale_layout == ScaleLayout::kPhysical ? physical_scale_row(br) : br;
    for (std::size_t col = 0; col < f; ++col) {
      const std::size_t k = row * f + col;
      std::uint32_t code = 0;
      if (fp4) {  // the data buffer holds P*F/2 bytes: element k is a nibble of byte position / 2
        const std::size_t position = nibble_position(k, config.fp4_lane_stride);
        const bool high = static_cast<int>(position % 2) == config.fp4_high_parity;
        code = high ? data[position / 2] >> 4 : data[position / 2] % 16;
      } else {
        code = data[k];
      }
      const int e8m0 = scale[scale_row * g.block_cols + col / g.block_width];
      const Value element = decode(format, code);
      std::uint32_t bits;
      if (e8m0 == static_cast<int>(E8M0::kNanCode) || element.is_nan()) {
        bits = kFp32QuietNanBits;
      } else {
        const Value v = element.is_inf()
                            ? element
                            : to_fp32(element.negative, element.magnitude * power_of_two(e8m0 - E8M0::kBias));
        bits = v.is_inf() ? kFp32InfBits : fp32_magnitude_bits(v.magnitude);
        if (v.negative) bits |= Float32::kSignMask;
      }
      std::memcpy(&output[k], &bits, sizeof bits);
    }
  }
}

}  // namespace mxconform::oracle
