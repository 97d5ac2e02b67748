// A bad test backend whose error message is hostile: for float16 input it returns
// MXC_STATUS_ERROR with bytes that are not UTF-8, a terminal title change and XML specials.
// Correct for bfloat16.
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

constexpr const char* kMessage = "\xff\xfe\x1b]0;pwned\x07 <&\"]]>";

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "bad_message", "float16: MXC_STATUS_ERROR with a message of invalid UTF-8, ESC and XML specials");

int quantize(const QuantizeCall& call) {
  if (call.params->input_dtype == MXC_INPUT_FLOAT16) return call.fail(kMessage);
  return mxconform::test_backends::quantize_with_scalar(call);
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
