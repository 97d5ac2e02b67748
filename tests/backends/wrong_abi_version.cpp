// A bad test backend: correct, but its info claims ABI version 99, which mxconform must refuse
// to load rather than call.
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::quantize_with_scalar;

constexpr std::uint32_t kWrongAbiVersion = 99;
static_assert(kWrongAbiVersion != MXCONFORM_BACKEND_ABI_VERSION);

const mxc_backend_info kInfo = [] {
  mxc_backend_info info = mxconform::test_backends::scalar_info("wrong_abi_version", "info.abi_version = 99");
  info.abi_version = kWrongAbiVersion;
  return info;
}();
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize_with_scalar>();
}
