// A planted multi-block fault: with more than one column block, the non-zero elements of the last
// column block (the last 4 columns) have their low bit flipped. The smallest failing shape is [8, 8].
#include "mxconform/quantize_config.h"
#include "scalar_adapter.h"

namespace {
using mxconform::kBlockCols;
using mxconform::kBlockRows;
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = [] {
  mxc_backend_info info = mxconform::test_backends::scalar_info("last_column_block_bug", "bfloat16 -> float8_e4m3fn only; F > 4 flips a bit of the last column block");
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
  if (cols <= kBlockCols) return status;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = cols - kBlockCols; c < cols; ++c) {
      if (!call.is_zero(r * cols + c)) call.data[r * cols + c] ^= kFlip;
    }
  }
  return status;
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
