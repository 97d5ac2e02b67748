// A bad test backend: dies of SIGSEGV (a write through a null pointer) when any input is NaN.
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "crash_on_nan", "SIGSEGV (null write) when any input element is NaN");

int quantize(const QuantizeCall& call) {
  for (std::size_t k = 0; k < call.elements(); ++k) {
    if (call.is_nan(k)) mxconform::test_backends::null_write();
  }
  return mxconform::test_backends::quantize_with_scalar(call);
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
