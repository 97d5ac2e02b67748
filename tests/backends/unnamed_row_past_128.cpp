// A planted fault only a tensor of more than 128 partitions shows: with P >= 136 (17 block rows
// and more) and the physical scale layout, it writes 0x42 into physical scale row 4, which no
// slot names (slots 0-3, 32-35, ...). Every dtype and knob the scalar supports.
#include "mxconform/scale_layout.h"
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "unnamed_row_past_128", "P >= 136, physical layout: writes physical scale row 4, which no slot names");

int quantize(const QuantizeCall& call) {
  constexpr std::size_t kFaultyFromRows = 136;
  constexpr std::size_t kUnnamedRow = mxconform::kScaleSlotGroupRows;  // the first row after slot group 0
  const int status = mxconform::test_backends::quantize_with_scalar(call);
  if (status != MXC_STATUS_OK || call.params->partitions < kFaultyFromRows ||
      call.params->scale_layout != MXC_SCALE_PHYSICAL) {
    return status;
  }
  const std::size_t row_bytes = call.scale_size / mxconform::physical_scale_rows(call.params->partitions / 8);
  for (std::size_t j = 0; j < row_bytes; ++j) call.scale[kUnnamedRow * row_bytes + j] = 0x42;
  return status;
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
