// A bad test backend with one wrong rounding decision: for e4m3fn outputs, the positive tie at
// 1.0625 (prescaled fp32 0x3F880000, halfway between 1.0 and 1.125) goes away from zero, to
// code 0x39, instead of to the even code 0x38. Every other value, and every other dtype, is right.
#include <cstring>

#include "e8m0_scale.h"
#include "mxconform/formats.h"
#include "scalar_adapter.h"

namespace {
using mxconform::E4M3FN;
using mxconform::test_backends::QuantizeCall;

constexpr std::uint32_t kTie = 0x3F88'0000u;           // 1.0625 = (1.0 + 1.125) / 2
constexpr std::uint8_t kEvenCode = 0b0'0111'000;       // 1.0
constexpr std::uint8_t kAwayCode = 0b0'0111'001;       // 1.125
static_assert(E4M3FN::kBias == 0b0111 && E4M3FN::kMantissaBits == 3);

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "wrong_rounding", "e4m3fn: the tie 1.0625 rounds to 0x39 (away), not 0x38 (even)");

bool is_e4m3(std::uint32_t output_dtype) {
  return output_dtype == MXC_OUTPUT_FLOAT8_E4M3FN || output_dtype == MXC_OUTPUT_FLOAT8_E4M3FN_X4;
}

// The prescaled fp32 bits of element k (docs/contract.md step 4), from the block's E8M0 byte.
std::uint32_t prescaled(const QuantizeCall& call, std::size_t k) {
  const std::uint32_t e8m0 = call.block_scale(call.block_of(k));
  const std::uint32_t x_bits = call.widened(k);
  const std::uint32_t m_bits = mxconform::impl::multiplier_bits(e8m0);
  float x, m;
  std::memcpy(&x, &x_bits, sizeof x);
  std::memcpy(&m, &m_bits, sizeof m);
  const float y = x * m;
  std::uint32_t y_bits;
  std::memcpy(&y_bits, &y, sizeof y_bits);
  return y_bits;
}

int quantize(const QuantizeCall& call) {
  const int status = mxconform::test_backends::quantize_with_scalar(call);
  if (status != MXC_STATUS_OK || !is_e4m3(call.params->output_dtype)) return status;
  for (std::size_t k = 0; k < call.elements(); ++k) {
    if (prescaled(call, k) == kTie && call.data[k] == kEvenCode) call.data[k] = kAwayCode;
  }
  return status;
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
