// A hostile test backend that takes all the memory it is given: each call mallocs up to 30 GiB in
// 256 MiB steps, writing one byte of each step, and when malloc returns NULL writes through it
// (SIGSEGV). Given all 30 GiB (no address-space limit), it frees them and quantizes correctly.
// Only the address space is taken, not the memory: a harness without a limit must not cost the
// machine its RAM while this is tested.
#include <array>
#include <cstdlib>

#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

constexpr std::size_t kStep = std::size_t{256} << 20;
constexpr std::size_t kMost = std::size_t{30} << 30;
constexpr std::size_t kSteps = kMost / kStep;
static_assert(kSteps == 120);

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "memory_hog", "mallocs up to 30 GiB per call in 256 MiB steps; SIGSEGV when malloc returns NULL");

int quantize(const QuantizeCall& call) {
  std::array<char*, kSteps> taken{};
  for (char*& step : taken) {
    step = static_cast<char*>(std::malloc(kStep));
    if (step == nullptr) mxconform::test_backends::null_write();  // what a careless kernel does with NULL
    *static_cast<volatile char*>(step) = 1;
  }
  for (char* step : taken) std::free(step);
  return mxconform::test_backends::quantize_with_scalar(call);
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
