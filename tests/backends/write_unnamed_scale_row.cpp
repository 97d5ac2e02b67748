// A bad test backend: in the physical scale layout, when a row exists that no slot names
// (P/8 > 4), it also changes that row's first byte. Correct otherwise.
#include "mxconform/scale_layout.h"
#include "scalar_adapter.h"

namespace {
using mxconform::kScaleSlotGroupRows;
using mxconform::scale_slot;
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "write_unnamed_scale_row", "physical layout, P/8 > 4: writes scale row 4, which no slot names");

int quantize(const QuantizeCall& call) {
  const int status = mxconform::test_backends::quantize_with_scalar(call);
  // Slots run 0..3, then 32..35: row 4 is the first that none names.
  const std::size_t unnamed_row = scale_slot(kScaleSlotGroupRows - 1) + 1;
  const std::size_t groups = static_cast<std::size_t>(call.params->partitions) / mxconform::kBlockRows;
  const std::size_t row_bytes = static_cast<std::size_t>(call.params->free) / mxconform::kBlockCols;
  if (status == MXC_STATUS_OK && call.params->scale_layout == MXC_SCALE_PHYSICAL && groups > kScaleSlotGroupRows) {
    mxconform::test_backends::change_byte(call.scale + unnamed_row * row_bytes);
  }
  return status;
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
