// A hostile test backend: on its first call it sends SIGTERM to its parent process, which in a
// certify worker is mxconform itself, then quantizes correctly. It signals nothing else, and
// nothing at all unless the parent is an mxconform process (never a shell or a test runner
// that loaded it in-process).
#include <signal.h>
#include <unistd.h>

#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "kill_parent", "first call: kill(getppid(), SIGTERM), then quantizes correctly");

int quantize(const QuantizeCall& call) {
  static bool signalled = false;
  if (!signalled && mxconform::test_backends::parent_is_mxconform()) {
    signalled = true;
    ::kill(::getppid(), SIGTERM);
  }
  return mxconform::test_backends::quantize_with_scalar(call);
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
