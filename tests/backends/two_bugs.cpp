// A planted backend with two independent bugs: a block holding a NaN gets scale byte 0xFE
// (a scale-byte bug in NaN blocks), and a -0 input gets code +0 (a data-byte bug on zero
// elements). Shrinking a case that shows one must not end on the other.
#include "mxconform/quantize_config.h"
#include "scalar_adapter.h"

namespace {
using mxconform::kBlockCols;
using mxconform::kBlockRows;
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::bfloat16_e4m3fn_info("two_bugs", "bfloat16 -> float8_e4m3fn only; NaN blocks get scale 0xFE, -0 gets +0");

using mxconform::test_backends::kFlip;

void plant(const QuantizeCall& call) {
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
}

int quantize(const QuantizeCall& call) { return mxconform::test_backends::quantize_then_plant(call, kInfo, plant); }
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
