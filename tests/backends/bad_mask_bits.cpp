// A bad test backend: correct, but its output_dtypes mask also has bit 3 set, and BIR id 3 is no
// output dtype (include/mxconform/backend.h, enum mxc_output_dtype).
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::quantize_with_scalar;

constexpr std::uint32_t kNoOutputDtype = 3;
static_assert(kNoOutputDtype != MXC_OUTPUT_FLOAT4_E2M1FN_X4 && kNoOutputDtype != MXC_OUTPUT_FLOAT8_E4M3FN &&
              kNoOutputDtype != MXC_OUTPUT_FLOAT8_E5M2 && kNoOutputDtype != MXC_OUTPUT_FLOAT8_E4M3FN_X4 &&
              kNoOutputDtype != MXC_OUTPUT_FLOAT8_E5M2_X4);

const mxc_backend_info kInfo = [] {
  mxc_backend_info info = mxconform::test_backends::scalar_info("bad_mask_bits", "output_dtypes has bit 3 set");
  info.output_dtypes |= 1u << kNoOutputDtype;
  return info;
}();
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize_with_scalar>();
}
