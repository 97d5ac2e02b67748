// A planted multi-block fault: with more than one column block, the non-zero elements of the last
// column block (the last 4 columns) have their low bit flipped. The smallest failing shape is [8, 8].
#include "mxconform/quantize_config.h"
#include "scalar_adapter.h"

namespace {
using mxconform::kBlockCols;
using mxconform::kBlockRows;
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::bfloat16_e4m3fn_info("last_column_block_bug", "bfloat16 -> float8_e4m3fn only; F > 4 flips a bit of the last column block");

using mxconform::test_backends::kFlip;

void plant(const QuantizeCall& call) {
  const std::size_t rows = call.params->partitions, cols = call.params->free;
  if (cols <= kBlockCols) return;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = cols - kBlockCols; c < cols; ++c) {
      if (!call.is_zero(r * cols + c)) call.data[r * cols + c] ^= kFlip;
    }
  }
}

int quantize(const QuantizeCall& call) { return mxconform::test_backends::quantize_then_plant(call, kInfo, plant); }
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
