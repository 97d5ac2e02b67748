// A bad test backend: correct, then changes the byte just before the data buffer, data[-1].
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "write_before_data", "writes data[-1], one byte before the data buffer");

int quantize(const QuantizeCall& call) {
  const int status = mxconform::test_backends::quantize_with_scalar(call);
  mxconform::test_backends::change_byte(call.data - 1);
  return status;
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
