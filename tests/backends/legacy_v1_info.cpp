// A correct backend as built against the first ABI version 1 header: its mxc_backend_info's
// struct_size ends before the appended `profiles` and `block_shapes`, so mxconform must treat it as
// neuron-only with 8 x 4 blocks and never read past what it declared.
#include "scalar_adapter.h"

namespace {

const mxc_backend_info kInfo = [] {
  mxc_backend_info info = mxconform::test_backends::scalar_info("legacy_v1_info", "the scalar implementation, v1 info");
  info.struct_size = MXC_BACKEND_INFO_V1_SIZE;
  info.profiles = 0xFFu;  // beyond struct_size: never read
  info.block_shapes = 0xFFu;
  return info;
}();

}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, mxconform::test_backends::quantize_with_scalar>();
}
