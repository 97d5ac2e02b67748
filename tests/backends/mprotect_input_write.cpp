// A bad test backend: correct, then makes the pages of its read-only input writable with
// mprotect() and changes input[0]. If mprotect() is refused it writes anyway (and faults).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "mprotect_input_write", "mprotect()s its input writable, then writes input[0] after quantizing");

int quantize(const QuantizeCall& call) {
  const int status = mxconform::test_backends::quantize_with_scalar(call);
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto first = reinterpret_cast<std::uintptr_t>(call.input) & ~(page - 1);
  const auto end = reinterpret_cast<std::uintptr_t>(call.input + call.elements());
  ::mprotect(reinterpret_cast<void*>(first), end - first, PROT_READ | PROT_WRITE);
  mxconform::test_backends::change_byte(const_cast<std::uint16_t*>(call.input));
  return status;
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
