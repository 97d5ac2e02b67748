// The neuron contract with its open points fixed at build time (FIXED_EMAX_MODE, FIXED_FP8_NAN,
// FIXED_HIGH_PARITY), whatever the call asks: how a device or a kernel that implements one reading
// looks from outside. It declares every knob value, as such a subject might; fingerprint must
// still name the knobs it implements.
#include "scalar_adapter.h"

namespace {

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info("neuron_fixed_knobs", "scalar, knobs fixed at build time");

int quantize(const mxconform::test_backends::QuantizeCall& call) {
  if (call.params == nullptr) return call.fail("params is NULL");
  mxc_quantize_params fixed = *call.params;
  fixed.emax_mode = FIXED_EMAX_MODE;
  fixed.fp8_nan = FIXED_FP8_NAN;
  fixed.fp4_high_parity = FIXED_HIGH_PARITY;
  mxconform::test_backends::QuantizeCall forwarded = call;
  forwarded.params = &fixed;
  return mxconform::test_backends::quantize_with_scalar(forwarded);
}

}  // namespace

const mxc_backend* mxconform_backend_v1() { return mxconform::test_backends::backend_table<kInfo, quantize>(); }
