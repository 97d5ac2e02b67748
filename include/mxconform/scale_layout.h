#pragma once
// The E8M0 scale tensor's physical layout (docs/contract.md step 7).
#include <cstddef>

namespace mxconform {

inline constexpr std::size_t kScaleSlotGroupRows = 4;    // consecutive scale rows kept together
inline constexpr std::size_t kScaleSlotGroupStride = 32; // physical rows from one group to the next

// Physical row of logical scale row i: (i & 3) + 32 * (i >> 2).
constexpr std::size_t scale_slot(std::size_t i) {
  return i % kScaleSlotGroupRows + kScaleSlotGroupStride * (i / kScaleSlotGroupRows);
}

// Rows of the physical scale buffer for `block_rows` logical rows (>= 1).
constexpr std::size_t physical_scale_rows(std::size_t block_rows) {
  return scale_slot(block_rows - 1) + 1;
}

static_assert(scale_slot(3) == 3 && scale_slot(4) == 32 && scale_slot(15) == 99);
static_assert(physical_scale_rows(16) == 100);

}  // namespace mxconform
