// A bad test backend: spins forever when any 8x4 block holds only zeros (+0 or -0).
#include "mxconform/formats.h"
#include "mxconform/quantize_config.h"
#include "scalar_adapter.h"

namespace {
using mxconform::Float32;
using mxconform::kBlockCols;
using mxconform::kBlockRows;
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "hang_on_zero_block", "loops forever when any 8x4 block is all zeros");

bool has_zero_block(const QuantizeCall& call) {
  const std::size_t free = static_cast<std::size_t>(call.params->free);
  for (std::size_t row0 = 0; row0 < call.params->partitions; row0 += kBlockRows) {
    for (std::size_t col0 = 0; col0 < free; col0 += kBlockCols) {
      bool all_zero = true;
      for (std::size_t r = row0; r < row0 + kBlockRows; ++r) {
        for (std::size_t c = col0; c < col0 + kBlockCols; ++c) {
          all_zero = all_zero && (call.widened(r * free + c) & Float32::kMagnitudeMask) == 0;
        }
      }
      if (all_zero) return true;
    }
  }
  return false;
}

int quantize(const QuantizeCall& call) {
  if (has_zero_block(call)) {
    volatile bool spinning = true;  // volatile: a loop without side effects may be removed
    while (spinning) {
    }
  }
  return mxconform::test_backends::quantize_with_scalar(call);
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
