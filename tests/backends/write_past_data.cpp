// A bad test backend: correct, then changes the byte one past the data buffer, data[data_size].
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "write_past_data", "writes data[data_size], one byte past the data buffer");

int quantize(const QuantizeCall& call) {
  const int status = mxconform::test_backends::quantize_with_scalar(call);
  mxconform::test_backends::change_byte(call.data + call.data_size);
  return status;
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
