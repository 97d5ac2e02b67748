// A bad test backend: in the physical scale layout with more than 4 partition groups (P/8 > 4),
// it also writes 0x00 to every scale row that no slot names, as a constant pre-fill of the whole
// scale buffer would. Correct otherwise.
#include <cstring>
#include <vector>

#include "mxconform/quantize_config.h"
#include "mxconform/scale_layout.h"
#include "mxconform/backend_params.h"
#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "zero_unnamed_scale_rows", "physical layout, P/8 > 4: writes 0x00 to every scale row no slot names");

int quantize(const QuantizeCall& call) {
  const int status = mxconform::test_backends::quantize_with_scalar(call);
  const std::size_t groups = static_cast<std::size_t>(call.params->partitions) / mxconform::kBlockRows;
  if (status != MXC_STATUS_OK || call.params->scale_layout != MXC_SCALE_PHYSICAL ||
      groups <= mxconform::kScaleSlotGroupRows) {
    return status;
  }
  const std::size_t row_bytes = static_cast<std::size_t>(call.params->free) / mxconform::kBlockCols;
  const std::vector<bool> named = mxconform::named_scale_rows(mxconform::config_from_params(*call.params));
  for (std::size_t row = 0; row < named.size(); ++row) {
    if (!named[row]) std::memset(call.scale + row * row_bytes, 0x00, row_bytes);
  }
  return status;
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
