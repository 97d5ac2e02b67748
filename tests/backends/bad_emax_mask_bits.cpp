// A bad test backend: correct, but its emax_modes mask also has bit 5 set, and there are two EMAX
// modes (0 and 1, include/mxconform/backend.h, enum mxc_emax_mode).
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::quantize_with_scalar;

constexpr std::uint32_t kNoEmaxMode = 5;
static_assert(kNoEmaxMode > MXC_EMAX_MINUS_1);

const mxc_backend_info kInfo = [] {
  mxc_backend_info info = mxconform::test_backends::scalar_info("bad_emax_mask_bits", "emax_modes has bit 5 set");
  info.emax_modes |= 1u << kNoEmaxMode;
  return info;
}();
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize_with_scalar>();
}
