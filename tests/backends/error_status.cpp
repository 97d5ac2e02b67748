// A bad test backend: declares float16 input but returns MXC_STATUS_ERROR, with a message, for
// every float16 call. Correct for bfloat16.
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "error_status", "returns MXC_STATUS_ERROR for float16 input");

int quantize(const QuantizeCall& call) {
  if (call.params->input_dtype == MXC_INPUT_FLOAT16) return call.fail("error_status: float16 input is refused (deliberately)");
  return mxconform::test_backends::quantize_with_scalar(call);
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
