// A bad test backend that is not deterministic: correct, except that every 50th call (counted per
// process) changes its first data byte, so a failing call run again passes.
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

constexpr unsigned kPeriod = 50;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "flaky_every_50th", "every 50th call changes data[0]");

int quantize(const QuantizeCall& call) {
  static unsigned calls = 0;
  const int status = mxconform::test_backends::quantize_with_scalar(call);
  if (++calls % kPeriod == 0 && status == MXC_STATUS_OK) mxconform::test_backends::change_byte(call.data);
  return status;
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
