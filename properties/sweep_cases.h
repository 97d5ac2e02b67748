#pragma once
// Whole-tensor cases that a campaign of small random cases does not reach, as plain seeded
// functions (no RapidCheck state). certify runs them in its property campaign on every declared
// configuration, at every level:
//
// - an E8M0 sweep: one block per binade a nonzero finite block maximum can lie in (bfloat16: 7
//   subnormal and 254 normal binades, float16: 10 and 30), so every E8M0 a finite block can get
//   is met, each block with its own mix of smaller magnitudes, signs and denormals;
// - a large tensor: more block rows than a 128-partition tensor has (scale slots beyond the
//   fourth slot group, row indices past 16 bits of elements) and a tail of 4 columns after the
//   last full 32-column stretch, with magnitudes spread over the whole exponent range.
//
// Both take `config`'s knobs and its block shape; the shape is a multiple of the block's extents.
// A lane stride the shape does not allow is left to the caller (certify widens the tensor).
#include <cstdint>

#include "quantize_case.h"

namespace mxconform::properties {

QuantizeCase e8m0_sweep_case(const QuantizeConfig& config, std::uint64_t seed);
QuantizeCase large_tensor_case(const QuantizeConfig& config, std::uint64_t seed);

}  // namespace mxconform::properties
