// A hostile test backend: on its first call it makes mxconform the owner of signal-driven I/O on
// its pipes, with SIGKILL as the signal (fcntl F_SETOWN, F_SETSIG, O_ASYNC): the next request
// mxconform writes would make the kernel kill mxconform on the worker's behalf, a route around a
// filter on kill(2). Then it quantizes correctly. Only when the parent is mxconform.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "signal_through_pipe_owner", "first call: F_SETOWN mxconform, F_SETSIG SIGKILL, O_ASYNC on fds 3 and 4");

int quantize(const QuantizeCall& call) {
  static bool armed = false;
  if (!armed && mxconform::test_backends::parent_is_mxconform()) {
    const pid_t parent = ::getppid();
    armed = true;
    for (int fd : {3, 4}) {
      ::fcntl(fd, F_SETOWN, parent);
      ::fcntl(fd, F_SETSIG, SIGKILL);
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_ASYNC);
    }
  }
  return mxconform::test_backends::quantize_with_scalar(call);
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
