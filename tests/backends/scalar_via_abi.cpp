// A correct test backend: the scalar implementation through the C ABI.
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::quantize_with_scalar;
const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "scalar_via_abi", "the scalar implementation through the C ABI (correct)");
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize_with_scalar>();
}
