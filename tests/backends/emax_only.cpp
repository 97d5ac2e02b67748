// A correct test backend that declares only EMAX mode emax: a certification asked for emax-1 has
// no configuration it supports, and must not be certified by corpus cases of the other mode.
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = [] {
  mxc_backend_info info = mxconform::test_backends::scalar_info("emax_only", "the scalar implementation, EMAX mode emax only");
  info.emax_modes = 1u << MXC_EMAX;
  return info;
}();

int quantize(const QuantizeCall& call) {
  if ((kInfo.emax_modes >> call.params->emax_mode & 1u) == 0) return MXC_STATUS_UNSUPPORTED;
  return mxconform::test_backends::quantize_with_scalar(call);
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
