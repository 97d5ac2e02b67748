// A planted multi-block fault: with P >= 64, every non-zero element's code has its low bit
// flipped. The smallest failing shape is [64, 4].
#include "mxconform/quantize_config.h"
#include "scalar_adapter.h"

namespace {
using mxconform::kBlockCols;
using mxconform::kBlockRows;
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::bfloat16_e4m3fn_info("large_p_bug", "bfloat16 -> float8_e4m3fn only; P >= 64 flips a bit of every non-zero element");

using mxconform::test_backends::kFlip;

void plant(const QuantizeCall& call) {
  const std::size_t rows = call.params->partitions, cols = call.params->free;
  constexpr std::size_t kFaultyFromRows = 64;
  if (rows < kFaultyFromRows) return;
  for (std::size_t k = 0; k < rows * cols; ++k) {
    if (!call.is_zero(k)) call.data[k] ^= kFlip;
  }
}

int quantize(const QuantizeCall& call) { return mxconform::test_backends::quantize_then_plant(call, kInfo, plant); }
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
