// A correct test backend that declares one input dtype and one output dtype, float16 ->
// float8_e5m2: fingerprint must run its deciding cases in those dtypes and name it.
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = [] {
  mxc_backend_info info =
      mxconform::test_backends::scalar_info("float16_e5m2_only", "the scalar implementation, float16 -> float8_e5m2 only");
  info.input_dtypes = 1u << MXC_INPUT_FLOAT16;
  info.output_dtypes = 1u << MXC_OUTPUT_FLOAT8_E5M2;
  return info;
}();

int quantize(const QuantizeCall& call) {
  if ((kInfo.output_dtypes >> call.params->output_dtype & 1u) == 0) return MXC_STATUS_UNSUPPORTED;
  if ((kInfo.input_dtypes >> call.params->input_dtype & 1u) == 0) return MXC_STATUS_UNSUPPORTED;
  return mxconform::test_backends::quantize_with_scalar(call);
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
