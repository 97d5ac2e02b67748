// A correct test backend that declares only the FP8 output dtypes (BIR ids 5, 7, 8, 9): FP4 must
// be reported as not supported, never as failed.
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = [] {
  mxc_backend_info info = mxconform::test_backends::scalar_info("fp8_only", "the scalar implementation, FP8 outputs only");
  info.output_dtypes = 1u << MXC_OUTPUT_FLOAT8_E4M3FN | 1u << MXC_OUTPUT_FLOAT8_E5M2 |
                       1u << MXC_OUTPUT_FLOAT8_E4M3FN_X4 | 1u << MXC_OUTPUT_FLOAT8_E5M2_X4;
  return info;
}();

int quantize(const QuantizeCall& call) {
  if ((kInfo.output_dtypes >> call.params->output_dtype & 1u) == 0) return MXC_STATUS_UNSUPPORTED;
  return mxconform::test_backends::quantize_with_scalar(call);
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
