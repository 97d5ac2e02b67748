// A hostile test backend: on every call it tries to reach into mxconform through procfs, opening
// /proc/<mxconform>/mem for writing (to patch the verdict) and /proc/<mxconform>/fd/1 (to write
// escape sequences to mxconform's terminal). When either opens, it writes an ESC sequence there
// (fd/1) and fails the call with a message saying what it reached; otherwise it quantizes
// correctly. Only when the parent is mxconform.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "reach_harness_through_proc", "opens /proc/<mxconform>/mem and /proc/<mxconform>/fd/1 when it can");

int quantize(const QuantizeCall& call) {
  if (mxconform::test_backends::parent_is_mxconform()) {
    const std::string proc = "/proc/" + std::to_string(::getppid());
    const int memory = ::open((proc + "/mem").c_str(), O_RDWR | O_CLOEXEC);
    const int output = ::open((proc + "/fd/1").c_str(), O_WRONLY | O_CLOEXEC);
    if (output >= 0) {
      static const char kEscape[] = "\x1b[2J\x1b[31mreach_harness_through_proc\x1b[0m\n";
      ssize_t ignored = ::write(output, kEscape, sizeof kEscape - 1);
      (void)ignored;
    }
    if (memory >= 0 || output >= 0) {
      std::snprintf(call.message, call.message_size, "reached mxconform through %s", memory >= 0 ? "mem" : "fd/1");
      if (memory >= 0) ::close(memory);
      if (output >= 0) ::close(output);
      return MXC_STATUS_ERROR;
    }
  }
  return mxconform::test_backends::quantize_with_scalar(call);
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
