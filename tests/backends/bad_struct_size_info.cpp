// A bad test backend: correct, but its info claims struct_size 4, too small to hold even the
// fields of ABI version 1. mxconform must refuse it rather than read past what it declares.
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::quantize_with_scalar;

constexpr std::uint32_t kTooSmall = 4;
static_assert(kTooSmall < sizeof(mxc_backend_info));

const mxc_backend_info kInfo = [] {
  mxc_backend_info info = mxconform::test_backends::scalar_info("bad_struct_size_info", "info.struct_size = 4");
  info.struct_size = kTooSmall;
  return info;
}();
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize_with_scalar>();
}
