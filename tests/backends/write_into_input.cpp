// A bad test backend: correct, then changes the first byte of its input (which is read-only).
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "write_into_input", "writes input[0] after quantizing");

int quantize(const QuantizeCall& call) {
  const int status = mxconform::test_backends::quantize_with_scalar(call);
  mxconform::test_backends::change_byte(const_cast<std::uint16_t*>(call.input));
  return status;
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
