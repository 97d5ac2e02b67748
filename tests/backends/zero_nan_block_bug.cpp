// A bad test backend with a bug only one block class shows: it declares bfloat16 input and
// float8_e4m3fn output only, and is correct except for a block of zeros (+0 or -0) but for
// exactly one NaN, whose scale byte it writes as 0x02.
#include "mxconform/quantize_config.h"
#include "scalar_adapter.h"

namespace {
using mxconform::kBlockSize;
using mxconform::test_backends::QuantizeCall;

constexpr std::uint8_t kWrongScale = 0x02;  // the right E8M0 of such a block is never 2

const mxc_backend_info kInfo = [] {
  mxc_backend_info info = mxconform::test_backends::scalar_info(
      "zero_nan_block_bug", "bfloat16 -> float8_e4m3fn only; zeros plus one NaN get scale byte 0x02");
  info.input_dtypes = 1u << MXC_INPUT_BFLOAT16;
  info.output_dtypes = 1u << MXC_OUTPUT_FLOAT8_E4M3FN;
  return info;
}();

bool zeros_and_one_nan(const QuantizeCall& call, std::size_t block) {
  std::size_t nans = 0, zeros = 0;
  for (std::size_t i = 0; i < kBlockSize; ++i) {
    const std::size_t k = call.block_element(block, i);
    nans += call.is_nan(k);
    zeros += call.is_zero(k);
  }
  return nans == 1 && zeros == kBlockSize - 1;
}

int quantize(const QuantizeCall& call) {
  if ((kInfo.input_dtypes >> call.params->input_dtype & 1u) == 0 ||
      (kInfo.output_dtypes >> call.params->output_dtype & 1u) == 0) {
    return MXC_STATUS_UNSUPPORTED;
  }
  const int status = mxconform::test_backends::quantize_with_scalar(call);
  for (std::size_t b = 0; b < call.blocks() && status == MXC_STATUS_OK; ++b) {
    if (zeros_and_one_nan(call, b)) call.block_scale(b) = kWrongScale;
  }
  return status;
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
