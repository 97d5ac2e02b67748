// The avx512 kernel on a CPU without AVX-512: impl/avx512_backend.cpp built on SIMDe's portable
// AVX-512 (avx512_simde.h) behind the C ABI, so that `mxconform certify` runs the same campaigns
// on it as on any plug-in. Correct, and declares everything the kernel supports. Needs AVX2 and
// F16C (it is built for them); on a CPU without them every call is an error that says so.
#include "avx512_backend.h"
#include "mxconform/backend_params.h"
#include "mxconform/cpu_features.h"
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "avx512-simde", "impl/avx512_backend.cpp on SIMDe's AVX-512 (built for AVX2 + F16C): the avx512 kernel's logic");

int quantize_with_avx512_simde(const QuantizeCall& call) {
  const mxconform::Subject& subject = mxconform::impl::avx512_simde_backend();
  if (!mxconform::CpuFeatures::detect().covers(subject.required_features())) {
    return call.fail("avx512-simde is built for AVX2 and F16C, which this CPU does not report");
  }
  return mxconform::quantize_through_abi(subject, call.params, call.input, call.data, call.data_size, call.scale,
                                         call.scale_size, call.message, call.message_size);
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize_with_avx512_simde>();
}
