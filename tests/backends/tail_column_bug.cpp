// A planted multi-block fault: a kernel that works 32 columns at a time gets its tail wrong. With
// F > 32 and F % 32 != 0, the last column's non-zero elements have their low bit flipped. The
// smallest failing shape is [8, 36].
#include "mxconform/quantize_config.h"
#include "scalar_adapter.h"

namespace {
using mxconform::kBlockCols;
using mxconform::kBlockRows;
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::bfloat16_e4m3fn_info("tail_column_bug", "bfloat16 -> float8_e4m3fn only; F > 32, F % 32 != 0 flips a bit of the last column");

using mxconform::test_backends::kFlip;

void plant(const QuantizeCall& call) {
  const std::size_t rows = call.params->partitions, cols = call.params->free;
  constexpr std::size_t kColumnsPerStep = 32;
  if (cols <= kColumnsPerStep || cols % kColumnsPerStep == 0) return;
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t k = r * cols + cols - 1;
    if (!call.is_zero(k)) call.data[k] ^= kFlip;
  }
}

int quantize(const QuantizeCall& call) { return mxconform::test_backends::quantize_then_plant(call, kInfo, plant); }
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
