// A planted fault no small random case meets: every scale byte 200 (a block whose largest
// magnitude is near 2^73) is written as 201. Every dtype and knob the scalar supports.
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "one_scale_value_bug", "writes E8M0 201 where 200 is right, and nothing else wrong");

int quantize(const QuantizeCall& call) {
  constexpr std::uint8_t kWrongFor = 200;
  const int status = mxconform::test_backends::quantize_with_scalar(call);
  if (status != MXC_STATUS_OK) return status;
  for (std::size_t j = 0; j < call.scale_size; ++j) {
    if (call.scale[j] == kWrongFor) call.scale[j] = kWrongFor + 1;
  }
  return status;
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
