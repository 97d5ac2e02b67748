#include "oracle.h"

#include "element_memo.h"
#include "exact.h"
#include "profile_quantize.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace mxconform::oracle {
namespace {

using boost::multiprecision::cpp_int;

std::uint32_t field(std::uint32_t code, int shift, int width) {
  return (code >> shift) & ((1u << width) - 1);
}

// Sign-bit position of the element format (FP4: bit 3, FP8: bit 7).
std::uint32_t sign_code(const FormatInfo& format, bool negative) {
  return negative ? 1u << (format.bits - 1) : 0u;
}

// fp32 bits of a value that is exactly representable in fp32 (or Inf/NaN).
std::uint32_t fp32_bits(const Value& v) {
  const FormatInfo f32 = Float32::info();
  const std::uint32_t sign = v.negative ? 1u << 31 : 0u;
  if (v.is_nan()) return sign | 0x7FC0'0000u;  // the canonical quiet NaN
  if (v.is_inf()) return sign | (0xFFu << f32.mantissa_bits);
  return sign | fp32_magnitude_bits(v.magnitude);
}

}  // namespace

Value decode(const FormatInfo& format, std::uint32_t code) {
  const int m_bits = format.mantissa_bits;
  const int e_bits = format.exponent_bits;
  const std::uint32_t mantissa = field(code, 0, m_bits);
  const std::uint32_t exponent = field(code, m_bits, e_bits);
  const bool all_ones_exponent = exponent == (1u << e_bits) - 1;

  Value v;
  v.negative = field(code, m_bits + e_bits, 1) == 1;
  if (format.specials == Specials::kIeee && all_ones_exponent) {
    v.kind = mantissa == 0 ? Value::Kind::kInf : Value::Kind::kNan;
    return v;
  }
  if (format.specials == Specials::kFiniteAndNan && all_ones_exponent &&
      mantissa == (1u << m_bits) - 1) {
    v.kind = Value::Kind::kNan;
    return v;
  }
  // Subnormal: 0.m * 2^(1 - bias); normal: 1.m * 2^(e - bias).
  if (exponent == 0) {
    v.magnitude = Rational(mantissa) * power_of_two(1 - format.bias - m_bits);
  } else {
    v.magnitude = Rational((1u << m_bits) + mantissa) *
                  power_of_two(static_cast<int>(exponent) - format.bias - m_bits);
  }
  return v;
}

int floor_log2(const Rational& r) {
  const cpp_int& num = numerator(r);
  const cpp_int& den = denominator(r);
  int e = static_cast<int>(msb(num)) - static_cast<int>(msb(den));
  // 2^e <= r < 2^(e+2) here; step down once if r < 2^e.
  if (r < power_of_two(e)) --e;
  return e;
}

int fp32_exponent_field(const Value& value) {
  const FormatInfo f32 = Float32::info();
  const int all_ones = (1 << f32.exponent_bits) - 1;
  if (!value.is_finite()) return all_ones;
  if (value.magnitude == 0) return 0;
  const int e = floor_log2(value.magnitude);
  if (e < 1 - f32.bias) return 0;  // an fp32 denormal reads exponent field 0
  return e + f32.bias;
}

int emax_of(const FormatInfo& format) { return floor_log2(finite_values(format).back()); }

int block_e8m0(int max_field, const QuantizeConfig& config) {
  const int emax = floor_log2(finite_values(info(config.output).element).back());
  const int bias = config.emax_mode == EmaxMode::kEmax ? emax : emax - 1;
  return std::max(1, std::max(0, max_field - bias));  // CLAMP-LOW, then ZERO-FLOOR
}

Value multiplier(int e8m0) {
  const FormatInfo f32 = Float32::info();
  const int exponent_field = (2 * f32.bias) - e8m0;  // the seed's 254 - e8m0
  if (exponent_field < 0) throw std::logic_error("oracle: e8m0 above 254 has no multiplier");
  return decode(f32, static_cast<std::uint32_t>(exponent_field) << f32.mantissa_bits);
}

Value round_to_ieee(bool negative, const Rational& magnitude, const FormatInfo& format) {
  Value v;
  v.negative = negative;
  if (magnitude == 0) return v;
  const int min_normal_exponent = 1 - format.bias;
  const int e = std::max(floor_log2(magnitude), min_normal_exponent);
  const Rational quantum = power_of_two(e - format.mantissa_bits);
  const Rational units = magnitude / quantum;
  cpp_int rounded = numerator(units) / denominator(units);  // floor, units > 0
  const Rational remainder = units - Rational(rounded);
  const Rational half(1, 2);
  if (remainder > half || (remainder == half && (rounded & 1) != 0)) ++rounded;
  v.magnitude = Rational(rounded) * quantum;
  // Overflow: at or beyond 2^(emax+1) the nearest-even result is Inf.
  if (v.magnitude >= power_of_two(format.emax + 1)) {
    v.kind = Value::Kind::kInf;
    v.magnitude = 0;
  }
  return v;
}

Value prescale(const Value& x, const Value& m) {
  Value y;
  y.negative = x.negative != m.negative;
  if (x.is_nan()) {
    y.kind = Value::Kind::kNan;
    y.negative = x.negative;  // SSE returns the NaN operand, quieted
    return y;
  }
  const bool x_zero = x.is_finite() && x.magnitude == 0;
  const bool m_zero = m.is_finite() && m.magnitude == 0;
  if ((x.is_inf() && m_zero) || (m.is_inf() && x_zero)) {
    y.kind = Value::Kind::kNan;
    y.negative = true;  // x86 default NaN 0xFFC00000
    return y;
  }
  if (x.is_inf() || m.is_inf()) {
    y.kind = Value::Kind::kInf;
    return y;
  }
  return round_to_ieee(y.negative, x.magnitude * m.magnitude, Float32::info());
}

std::uint32_t narrow(const Value& y, ElementKind element, Fp8NanPolicy nan_policy) {
  const FormatInfo& format = element_info(element);
  const std::vector<Rational>& values = finite_values(element);  // values[code]
  const std::uint32_t sign = sign_code(format, y.negative);
  const std::uint32_t max_code = static_cast<std::uint32_t>(values.size() - 1);
  if (y.is_nan()) {
    if (element == ElementKind::kFp4E2m1) return sign;  // FP4 has no NaN: signed zero
    if (nan_policy == Fp8NanPolicy::kZero) return sign;
    const std::uint32_t all_ones_magnitude = (1u << (format.bits - 1)) - 1;
    return sign | all_ones_magnitude;
  }
  if (y.is_inf()) return sign | max_code;  // saturation
  // Nearest grid point: the first code at or above |y|, and the one below it.
  const auto above = std::lower_bound(values.begin(), values.end(), y.magnitude);
  if (above == values.end()) return sign | max_code;  // beyond the largest: saturate
  const std::uint32_t hi = static_cast<std::uint32_t>(above - values.begin());
  if (*above == y.magnitude || hi == 0) return sign | hi;
  const std::uint32_t lo = hi - 1;
  const Rational below_distance = y.magnitude - values[lo];
  const Rational above_distance = values[hi] - y.magnitude;
  if (below_distance < above_distance) return sign | lo;
  if (above_distance < below_distance) return sign | hi;
  return sign | ((lo % 2 == 0) ? lo : hi);  // a tie goes to the even code
}

std::size_t nibble_position(std::size_t k, std::size_t stride) {
  if (stride == 0) return k;
  const std::size_t window_size = 2 * stride;
  const std::size_t window = k / window_size;
  const std::size_t pair = (k % window_size) / 2;
  const std::size_t lane = k % 2;
  const std::size_t mirrored_pair = stride - 1 - pair;
  return window * window_size + 2 * mirrored_pair + lane;
}

std::size_t physical_scale_row(std::size_t i) {
  // Four consecutive rows form a group; each group starts 32 rows after the one before.
  constexpr std::size_t kRowsPerGroup = 4;
  constexpr std::size_t kRowsBetweenGroups = 32;
  return (i / kRowsPerGroup) * kRowsBetweenGroups + i % kRowsPerGroup;
}

void pack(const QuantizeConfig& config, const std::vector<std::uint32_t>& codes, std::uint8_t* data) {
  const std::size_t count = config.partitions * config.free;
  if (info(config.output).element != ElementKind::kFp4E2m1) {
    for (std::size_t k = 0; k < count; ++k) data[k] = static_cast<std::uint8_t>(codes[k]);
    return;
  }
  std::vector<std::uint32_t> nibble_at(count);
  for (std::size_t k = 0; k < count; ++k) nibble_at[nibble_position(k, config.fp4_lane_stride)] = codes[k];
  std::fill(data, data + count / 2, 0);
  for (std::size_t position = 0; position < count; ++position) {
    const bool high = static_cast<int>(position % 2) == config.fp4_high_parity;
    data[position / 2] |= static_cast<std::uint8_t>(high ? nibble_at[position] << 4 : nibble_at[position]);
  }
}

void quantize(const QuantizeConfig& config, const std::uint16_t* input, std::uint8_t* data,
              std::uint8_t* scale) {
  if (config.profile != ProfileId::kNeuron) return quantize_profile(config, input, data, scale);
  validate(config);
  const std::size_t p = config.partitions;
  const std::size_t f = config.free;
  const FormatInfo in_format = input_format(config.input);
  const ElementKind element = info(config.output).element;
  const std::size_t groups = p / kBlockRows;
  const std::size_t cols = f / kBlockCols;

  // Each element's exact results, once per thread (element_memo.h): its fp32 exponent field
  // (steps 1-2) from its dtype and code; its element code (steps 4-5) from those, the block's E8M0,
  // the element kind and the NaN policy.
  thread_local ElementMemo fields;
  thread_local ElementMemo element_codes;
  const auto input_key = [&](std::uint16_t x) {
    return MemoKey().add(static_cast<std::uint64_t>(config.input), 1).add(x, 16);
  };
  std::vector<std::uint32_t> codes(p * f);
  std::vector<int> e8m0(groups * cols);
  for (std::size_t g = 0; g < groups; ++g) {
    for (std::size_t c = 0; c < cols; ++c) {
      // Steps 1-2: the largest fp32 exponent field of the block's exact values.
      int max_field = 0;
      for (std::size_t row = g * kBlockRows; row < (g + 1) * kBlockRows; ++row) {
        for (std::size_t col = c * kBlockCols; col < (c + 1) * kBlockCols; ++col) {
          const std::uint16_t x = input[row * f + col];
          const auto field = fields.get(input_key(x).value(), [&] {
            return static_cast<std::uint32_t>(fp32_exponent_field(decode(in_format, x)));
          });
          max_field = std::max(max_field, static_cast<int>(field));
        }
      }
      // Steps 3-5.
      const int scale_byte = block_e8m0(max_field, config);
      e8m0[g * cols + c] = scale_byte;
      const Value m = multiplier(scale_byte);
      for (std::size_t row = g * kBlockRows; row < (g + 1) * kBlockRows; ++row) {
        for (std::size_t col = c * kBlockCols; col < (c + 1) * kBlockCols; ++col) {
          const std::uint16_t x = input[row * f + col];
          const MemoKey key = input_key(x)
                                  .add(static_cast<std::uint64_t>(scale_byte), 8)
                                  .add(static_cast<std::uint64_t>(element), 2)
                                  .add(static_cast<std::uint64_t>(config.fp8_nan), 1);
          codes[row * f + col] = element_codes.get(key.value(), [&] {
            return narrow(prescale(decode(in_format, x), m), element, config.fp8_nan);
          });
        }
      }
    }
  }

  // Step 6: pack.
  pack(config, codes, data);

  // Step 7: scale rows.
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t row =
        config.scale_layout == ScaleLayout::kPhysical ? physical_scale_row(g) : g;
    for (std::size_t c = 0; c < cols; ++c) scale[row * cols + c] = static_cast<std::uint8_t>(e8m0[g * cols + c]);
  }
}

void dequantize(const QuantizeConfig& config, const std::uint8_t* data, const std::uint8_t* scale,
                float* output) {
  if (config.profile != ProfileId::kNeuron) return dequantize_profile(config, data, scale, output);
  validate(config);
  const std::size_t p = config.partitions;
  const std::size_t f = config.free;
  const FormatInfo element_fmt = element_format(config.output);
  const bool fp4 = is_fp4(config.output);
  const std::size_t cols = f / kBlockCols;
  for (std::size_t row = 0; row < p; ++row) {
    const std::size_t g = row / kBlockRows;
    const std::size_t scale_row =
        config.scale_layout == ScaleLayout::kPhysical ? physical_scale_row(g) : g;
    for (std::size_t col = 0; col < f; ++col) {
      const std::size_t k = row * f + col;
      std::uint32_t code;
      if (fp4) {
        const std::size_t position = nibble_position(k, config.fp4_lane_stride);
        const bool high = static_cast<int>(position % 2) == config.fp4_high_parity;
        const std::uint32_t byte = data[position / 2];
        code = high ? byte >> 4 : byte % 16;
      } else {
        code = data[k];
      }
      const int e8m0 = scale[scale_row * cols + col / kBlockCols];
      const Value element = decode(element_fmt, code);
      Value result = element;
      if (element.is_finite()) {
        result = round_to_ieee(element.negative, element.magnitude * power_of_two(e8m0 - E8M0::kBias),
                               Float32::info());
      }
      const std::uint32_t bits = fp32_bits(result);
      std::memcpy(&output[k], &bits, sizeof bits);
    }
  }
}

namespace {

class OracleBackend final : public Subject {
 public:
  std::string_view name() const override { return "oracle"; }
  std::string_view description() const override {
    return "exact rational reference (Boost.Multiprecision); slow, obviously correct";
  }
  CpuFeatures required_features() const override { return {}; }
  bool is_reference() const override { return true; }
  // Every profile and block shape (the built-in kernels declare neuron only).
  Capabilities capabilities() const override { return Capabilities::every_profile(); }
  void quantize(const QuantizeConfig& config, const std::uint16_t* input, std::uint8_t* data,
                std::uint8_t* scale) const override {
    oracle::quantize(config, input, data, scale);
  }
  void dequantize(const QuantizeConfig& config, const std::uint8_t* data, const std::uint8_t* scale,
                  float* output) const override {
    oracle::dequantize(config, data, scale, output);
  }
};

}  // namespace

const Subject& backend() {
  static const OracleBackend kBackend;
  return kBackend;
}

}  // namespace mxconform::oracle
