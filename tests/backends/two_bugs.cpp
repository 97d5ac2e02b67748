// A planted backend with two independent bugs: a block holding a NaN gets scale byte 0xFE
// (a scale-byte bug in NaN blocks), and a -0 input gets code +0 (a data-byte bug on zero
// elements). Shrinking a case that shows one must not end on the other.
#include "mxconform/quantize_config.h"
#include "scalar_adapter.h"

namespace {
using mxconform::kBlockCols;
using mxconform::kBlockRows;
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = [] {
  mxc_backend_info info = mxconform::test_backends::scalar_info("two_bugs", "bfloat16 -> float8_e4m3fn only; NaN blocks get scale 0xFE, -0 gets +0");
  info.input_dtypes = 1u << MXC_INPUT_BFLOAT16;
  info.output_dtypes = 1u << MXC_OUTPUT_FLOAT8_E4M3FN;
  return info;
}();

// One bit of a data byte flipped: a wrong element code, whatever the right one was.
constexpr std::uint8_t kFlip = 0b0'0000'001;

int quantize(const QuantizeCall& call) {
  if ((kInfo.input_dtypes >> call.params->input_dtype & 1u) == 0 ||
      (kInfo.output_dtypes >> call.params->output_dtype & 1u) == 0) {
    return MXC_STATUS_UNSUPPORTED;
  }
  const int status = mxconform::test_backends::quantize_with_scalar(call);
  if (status != MXC_STATUS_OK) return status;
  const std::size_t rows = call.params->partitions, cols = call.params->free;
  constexpr std::uint16_t kNegativeZero = 0b1'00000000'0000000;
  constexpr std::uint8_t kWrongNanBlockScale = 0xFE;  // a NaN block's E8M0 is the NaN code 0xFF
  for (std::size_t b = 0; b < call.blocks(); ++b) {
    for (std::size_t i = 0; i < kBlockRows * kBlockCols; ++i) {
      if (call.is_nan(call.block_element(b, i))) {
        call.block_scale(b) = kWrongNanBlockScale;
        break;
      }
    }
  }
  for (std::size_t k = 0; k < rows * cols; ++k) {
    if (call.input[k] == kNegativeZero) call.data[k] = 0;
  }
  return status;
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
