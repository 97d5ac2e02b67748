#pragma once
// The scalar per-block path of docs/contract.md steps 1-5, shared by the scalar backend and by the
// tails of the SIMD kernels.
#include <cstddef>
#include <cstdint>

#include "fault_injection.h"
#include "mxconform/quantize_config.h"

namespace mxconform::impl {
inline namespace MXCONFORM_IMPL_VARIANT {

// Quantizes the blocks [block_begin, block_end) of partition group `group`: element codes go to
// codes[r * codes_stride + (col - 4 * block_begin)] for rows r in [0, 8) of the group and columns
// col of those blocks, one code per byte; block b's E8M0 goes to e8m0[b - block_begin].
void quantize_blocks(const QuantizeConfig& config, const std::uint16_t* input, std::size_t group,
                     std::size_t block_begin, std::size_t block_end, std::uint8_t* codes,
                     std::size_t codes_stride, std::uint8_t* e8m0);

}  // namespace MXCONFORM_IMPL_VARIANT
}  // namespace mxconform::impl
