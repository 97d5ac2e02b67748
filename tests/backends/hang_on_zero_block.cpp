// A bad test backend: spins forever when any 8x4 block holds only zeros (+0 or -0).
#include "mxconform/quantize_config.h"
#include "scalar_adapter.h"

namespace {
using mxconform::kBlockSize;
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "hang_on_zero_block", "loops forever when any 8x4 block is all zeros");

bool has_zero_block(const QuantizeCall& call) {
  for (std::size_t b = 0; b < call.blocks(); ++b) {
    bool all_zero = true;
    for (std::size_t i = 0; i < kBlockSize; ++i) all_zero = all_zero && call.is_zero(call.block_element(b, i));
    if (all_zero) return true;
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
