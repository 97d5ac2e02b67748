// A hostile test backend that tries to leave a process outside the worker's session: on its
// first call (per process) it forks a child that calls setsid() and sleeps for a minute
// (lingering_child.h). When the child cannot (it is killed), the worker dies of the same signal;
// when it can, the worker quantizes correctly and the child outlives it.
#include "lingering_child.h"
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "setsid_escape", "first call: forks a child that calls setsid() and sleeps 60 s");

int quantize(const QuantizeCall& call) {
  static bool forked = false;
  if (!forked) {
    forked = true;
    const auto child = mxconform::test_backends::start_lingering_child(mxconform::test_backends::Session::kLeave);
    if (child.pid > 0 && !child.ready) mxconform::test_backends::die_like(child.pid);
  }
  return mxconform::test_backends::quantize_with_scalar(call);
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
