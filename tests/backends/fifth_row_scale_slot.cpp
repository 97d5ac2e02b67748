// A planted multi-block fault: the scale byte of every block in the fifth block row (rows 32..39)
// has its low bit flipped. The smallest failing shape is [40, 4].
#include "mxconform/quantize_config.h"
#include "scalar_adapter.h"

namespace {
using mxconform::kBlockCols;
using mxconform::kBlockRows;
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = [] {
  mxc_backend_info info = mxconform::test_backends::scalar_info("fifth_row_scale_slot", "bfloat16 -> float8_e4m3fn only; block row 4 scale bytes off by one bit");
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
  (void)rows;
  (void)cols;
  constexpr std::size_t kFaultyBlockRow = 4;
  const std::size_t per_row = call.blocks() / (call.params->partitions / kBlockRows);
  for (std::size_t b = 0; b < call.blocks(); ++b) {
    if (b / per_row == kFaultyBlockRow) call.block_scale(b) ^= kFlip;
  }
  return status;
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
