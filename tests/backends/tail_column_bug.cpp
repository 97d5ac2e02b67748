// A planted multi-block fault: a kernel that works 32 columns at a time gets its tail wrong. With
// F > 32 and F % 32 != 0, the last column's non-zero elements have their low bit flipped. The
// smallest failing shape is [8, 36].
#include "mxconform/quantize_config.h"
#include "scalar_adapter.h"

namespace {
using mxconform::kBlockCols;
using mxconform::kBlockRows;
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = [] {
  mxc_backend_info info = mxconform::test_backends::scalar_info("tail_column_bug", "bfloat16 -> float8_e4m3fn only; F > 32, F % 32 != 0 flips a bit of the last column");
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
  constexpr std::size_t kColumnsPerStep = 32;
  if (cols <= kColumnsPerStep || cols % kColumnsPerStep == 0) return status;
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t k = r * cols + cols - 1;
    if (!call.is_zero(k)) call.data[k] ^= kFlip;
  }
  return status;
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
