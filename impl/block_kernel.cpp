#include "block_kernel.h"

#include <cstring>

#include "e8m0_scale.h"
#include "narrow.h"
#include "widen.h"

namespace mxconform::impl {
inline namespace MXCONFORM_IMPL_VARIANT {

void quantize_blocks(const QuantizeConfig& config, const std::uint16_t* input, std::size_t group,
                     std::size_t block_begin, std::size_t block_end, std::uint8_t* codes,
                     std::size_t codes_stride, std::uint8_t* e8m0) {
  const std::size_t f = config.free;
#ifdef MXCONFORM_FAULT_INJECTION
  const int bias = emax_bias(config) + (fault_planted(Fault::kEmaxOffByOne) ? 1 : 0);
#else
  const int bias = emax_bias(config);
#endif
  const FormatInfo format = element_format(config.output);
  const auto widen = config.input == InputDtype::kBfloat16 ? widen_bf16 : widen_f16;
  const std::uint16_t* group_in = input + group * kBlockRows * f;

  for (std::size_t c = block_begin; c < block_end; ++c) {
    // Steps 1-2: widen the 32 elements and take the largest exponent field.
    std::uint32_t wide[kBlockRows][kBlockCols];
    std::uint32_t max_field = 0;
    for (std::size_t r = 0; r < kBlockRows; ++r) {
      for (std::size_t j = 0; j < kBlockCols; ++j) {
        wide[r][j] = widen(group_in[r * f + c * kBlockCols + j]);
#ifdef MXCONFORM_FAULT_INJECTION
        if (fault_planted(Fault::kDenormalsAreZero)) wide[r][j] = denormal_as_zero(wide[r][j]);
        const std::uint32_t field = fault_planted(Fault::kIlogbfExponent) ? ilogbf_exponent_field(wide[r][j])
                                                                          : exponent_field(wide[r][j]);
#else
        const std::uint32_t field = exponent_field(wide[r][j]);
#endif
        max_field = std::max(max_field, field);
      }
    }
    // Step 3.
    const std::uint32_t scale = e8m0_from_max_field(max_field, bias);
    e8m0[c - block_begin] = static_cast<std::uint8_t>(scale);
    // Steps 4-5: one fp32 multiply per element, then the narrow.
    float m;
    const std::uint32_t m_bits = multiplier_bits(scale);
    std::memcpy(&m, &m_bits, sizeof m);
    for (std::size_t r = 0; r < kBlockRows; ++r) {
      for (std::size_t j = 0; j < kBlockCols; ++j) {
        float x;
        std::memcpy(&x, &wide[r][j], sizeof x);
        const float y = m * x;
        std::uint32_t y_bits;
        std::memcpy(&y_bits, &y, sizeof y_bits);
        codes[r * codes_stride + (c - block_begin) * kBlockCols + j] =
            static_cast<std::uint8_t>(narrow(y_bits, format, config.fp8_nan));
      }
    }
  }
}

}  // namespace MXCONFORM_IMPL_VARIANT
}  // namespace mxconform::impl
