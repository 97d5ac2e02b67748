// A hostile test backend that leaves a process behind and then crashes: on a call whose input
// holds a NaN it forks a child that keeps every inherited descriptor (the worker's pipes and
// stderr) and sleeps for a minute (lingering_child.h), then writes through a null pointer.
#include "lingering_child.h"
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "fork_grandchild", "NaN input: forks a child that sleeps 60 s holding the worker's fds, then SIGSEGV");

int quantize(const QuantizeCall& call) {
  for (std::size_t k = 0; k < call.elements(); ++k) {
    if (call.is_nan(k)) {
      mxconform::test_backends::start_lingering_child(mxconform::test_backends::Session::kKeep);
      mxconform::test_backends::null_write();
    }
  }
  return mxconform::test_backends::quantize_with_scalar(call);
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
