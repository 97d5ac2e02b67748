// A bad test backend: correct, but its mxc_backend table claims struct_size 0.
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::quantize_with_scalar;

const mxc_backend_info kInfo =
    mxconform::test_backends::scalar_info("bad_struct_size_table", "the mxc_backend table's struct_size = 0");
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize_with_scalar, 0>();
}
