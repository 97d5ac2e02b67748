#include "speed_of_light.h"

#include "avx2_kernels.h"
#include "mxconform/cpu_features.h"

namespace mxconform::bench {
namespace {

constexpr std::size_t kScaleGroup = 32;  // elements per scale byte, as in a quantize block
constexpr int kByteBits = 8;
constexpr int kNibbleBits = 4;
constexpr std::uint32_t kHighNibble = 0b1111'0000;

// Portable versions: the same bytes as the AVX2 kernels, in element order.
void scalar_sol_fp8(const std::uint16_t* input, std::size_t elements, std::uint8_t* data, std::uint8_t* scale) {
  for (std::size_t i = 0; i < elements; ++i) data[i] = static_cast<std::uint8_t>(input[i] >> kByteBits);
  for (std::size_t i = 0; i < elements; i += kScaleGroup) scale[i / kScaleGroup] = data[i];
}

void scalar_sol_fp4(const std::uint16_t* input, std::size_t elements, std::uint8_t* data, std::uint8_t* scale) {
  for (std::size_t i = 0; i < elements; i += 2) {
    data[i / 2] = static_cast<std::uint8_t>((input[i] >> (kByteBits + kNibbleBits)) |
                                            ((input[i + 1] >> kByteBits) & kHighNibble));
  }
  for (std::size_t i = 0; i < elements; i += kScaleGroup) scale[i / kScaleGroup] = data[i / 2];
}

bool use_avx2() {
  static const bool kAvx2 = CpuFeatures::detect().avx2;
  return kAvx2;
}

}  // namespace

SolKernels sol_kernels(OutputFamily family) {
  if (use_avx2()) {
    return family == OutputFamily::kFp8 ? SolKernels{avx2::sol_fp8, avx2::sol_fp8_streaming}
                                        : SolKernels{avx2::sol_fp4, avx2::sol_fp4_streaming};
  }
  return SolKernels{family == OutputFamily::kFp8 ? scalar_sol_fp8 : scalar_sol_fp4, nullptr};
}

std::string_view sol_kernel_isa() { return use_avx2() ? "avx2" : "scalar"; }

}  // namespace mxconform::bench
