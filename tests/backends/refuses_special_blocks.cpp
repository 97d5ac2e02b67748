// A backend that dodges what it would get wrong: it declares everything the scalar supports, then
// returns MXC_STATUS_UNSUPPORTED for every call whose input holds a NaN or an Inf, and quantizes
// the rest correctly. Declared-then-unsupported is the outcome "refused", a failure.
#include "mxconform/formats.h"
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "refuses_special_blocks", "declares everything; MXC_STATUS_UNSUPPORTED when the input holds a NaN or an Inf");

int quantize(const QuantizeCall& call) {
  for (std::size_t k = 0; k < call.elements(); ++k) {
    if ((call.widened(k) & mxconform::Float32::kExponentMask) == mxconform::Float32::kExponentMask) {
      return MXC_STATUS_UNSUPPORTED;
    }
  }
  return mxconform::test_backends::quantize_with_scalar(call);
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
