#include "scalar_backend.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "block_kernel.h"
#include "mxconform/bit_cast.h"
#include "fp4_pack.h"
#include "mxconform/scale_layout.h"

namespace mxconform::impl {
inline namespace MXCONFORM_IMPL_VARIANT {
namespace {

float from_bits(std::uint32_t bits) { return bit_cast<float>(bits); }
std::uint32_t to_bits(float value) { return bit_cast<std::uint32_t>(value); }

// Steps 1-5 for the whole tensor: one element code per byte, row-major, and the logical scales.
void quantize_codes(const QuantizeConfig& config, const std::uint16_t* input, std::uint8_t* codes,
                    std::uint8_t* logical_scale) {
  const std::size_t groups = config.partitions / kBlockRows;
  const std::size_t cols = config.free / kBlockCols;
  for (std::size_t g = 0; g < groups; ++g) {
    quantize_blocks(config, input, g, 0, cols, codes + g * kBlockRows * config.free, config.free,
                    logical_scale + g * cols);
  }
}

// Element value as fp32 bits, from the code's fields.
float decode_element(std::uint32_t code, const FormatInfo& format) {
  const std::uint32_t sign_bit = format.sign_mask;
  const std::uint32_t magnitude = code & (sign_bit - 1);
  const std::uint32_t mantissa = magnitude & ((1u << format.mantissa_bits) - 1);
  const std::uint32_t exponent = magnitude >> format.mantissa_bits;
  const std::uint32_t exponent_all_ones = (1u << format.exponent_bits) - 1;
  const std::uint32_t sign = (code & sign_bit) != 0 ? Float32::kSignMask : 0;
  const bool nan = (format.specials == Specials::kIeee && exponent == exponent_all_ones && mantissa != 0) ||
                   (format.specials == Specials::kFiniteAndNan && magnitude == sign_bit - 1);
  if (nan) return from_bits(sign | Float32::kExponentMask | (1u << (Float32::kMantissaBits - 1)));
  if (format.specials == Specials::kIeee && exponent == exponent_all_ones) {
    return from_bits(sign | Float32::kInfCode);
  }
  const std::uint32_t significand = exponent == 0 ? mantissa : mantissa | (1u << format.mantissa_bits);
  const int unbiased = (exponent == 0 ? 1 : static_cast<int>(exponent)) - format.bias - format.mantissa_bits;
  return from_bits(to_bits(std::ldexp(static_cast<float>(significand), unbiased)) | sign);
}

class ScalarBackend final : public Subject {
 public:
#ifdef MXCONFORM_FAULT_INJECTION
  std::string_view name() const override { return "scalar-faulty"; }
  std::string_view description() const override {
    return "the scalar implementation with a planted fault (tests only)";
  }
#else
  std::string_view name() const override { return "scalar"; }
  std::string_view description() const override {
    return "portable C++ with integer bit manipulation; always built, runs anywhere";
  }
#endif
  CpuFeatures required_features() const override { return {}; }

  void quantize(const QuantizeConfig& config, const std::uint16_t* input, std::uint8_t* data,
                std::uint8_t* scale) const override {
    const Geometry g = geometry(config);
    const std::size_t count = config.partitions * config.free;
    std::vector<std::uint8_t> logical_scale(g.block_rows * g.block_cols);
    if (is_fp4(config.output)) {
      std::vector<std::uint8_t> codes(count);
      quantize_codes(config, input, codes.data(), logical_scale.data());
      pack_fp4(codes.data(), count, config.fp4_lane_stride, config.fp4_high_parity, data);
    } else {
      quantize_codes(config, input, data, logical_scale.data());  // FP8: codes are the bytes
    }
    for (std::size_t i = 0; i < g.block_rows; ++i) {
#ifdef MXCONFORM_FAULT_INJECTION
      const bool physical = config.scale_layout == ScaleLayout::kPhysical && !fault_planted(Fault::kLogicalScaleRows);
#else
      const bool physical = config.scale_layout == ScaleLayout::kPhysical;
#endif
      const std::size_t row = physical ? scale_slot(i) : i;
      std::memcpy(scale + row * g.block_cols, logical_scale.data() + i * g.block_cols, g.block_cols);
    }
  }

  void dequantize(const QuantizeConfig& config, const std::uint8_t* data, const std::uint8_t* scale,
                  float* output) const override {
    const Geometry g = geometry(config);
    const std::size_t count = config.partitions * config.free;
    const FormatInfo format = element_format(config.output);
    std::vector<std::uint8_t> codes;
    const std::uint8_t* code_of = data;
    if (is_fp4(config.output)) {
      codes.resize(count);
      unpack_fp4(data, count, config.fp4_lane_stride, config.fp4_high_parity, codes.data());
      code_of = codes.data();
    }
    float table[1u << 8];
    for (std::uint32_t code = 0; code < (1u << format.bits); ++code) table[code] = decode_element(code, format);
    for (std::size_t row = 0; row < config.partitions; ++row) {
      const std::size_t group = row / kBlockRows;
      const std::size_t scales_at = scale_row(config, group);
      for (std::size_t col = 0; col < config.free; ++col) {
        const std::size_t k = row * config.free + col;
        const int e8m0 = scale[scales_at * g.block_cols + col / kBlockCols];
        output[k] = std::ldexp(table[code_of[k]], e8m0 - E8M0::kBias);
      }
    }
  }
};

}  // namespace

const Subject& scalar_backend() {
  static const ScalarBackend kBackend;
  return kBackend;
}

}  // namespace MXCONFORM_IMPL_VARIANT
}  // namespace mxconform::impl
