// A planted multi-block fault: the scale byte of every block in the fifth block row (rows 32..39)
// has its low bit flipped. The smallest failing shape is [40, 4].
#include "mxconform/quantize_config.h"
#include "scalar_adapter.h"

namespace {
using mxconform::kBlockCols;
using mxconform::kBlockRows;
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::bfloat16_e4m3fn_info("fifth_row_scale_slot", "bfloat16 -> float8_e4m3fn only; block row 4 scale bytes off by one bit");

using mxconform::test_backends::kFlip;

void plant(const QuantizeCall& call) {
  constexpr std::size_t kFaultyBlockRow = 4;
  const std::size_t per_row = call.blocks() / (call.params->partitions / kBlockRows);
  for (std::size_t b = 0; b < call.blocks(); ++b) {
    if (b / per_row == kFaultyBlockRow) call.block_scale(b) ^= kFlip;
  }
}

int quantize(const QuantizeCall& call) { return mxconform::test_backends::quantize_then_plant(call, kInfo, plant); }
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
