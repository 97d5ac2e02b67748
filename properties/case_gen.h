#pragma once
// Whole quantize cases: a configuration (output dtype, input dtype and every knob of
// docs/contract.md, "Open points") and a tensor of generated blocks (block_gen.h).
#include <rapidcheck.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "case_space.h"
#include "quantize_case.h"

namespace mxconform::properties {

// Cases of `space`. Shapes grow with RapidCheck's size from one 8x4 block, and about one case in
// 16 has the largest shape; P is any multiple of 8. The FP4 lane stride is 0 for a quarter of the
// cases, otherwise any stride the shape allows ((P*F) % (2*stride) == 0), and it and the parity
// are drawn for FP8 outputs too, which must ignore them. The tensor's blocks come from a list of
// up to `size` block recipes, block i (row-major over the [P/8][F/4] blocks) taking recipe
// i % length (an empty list stands for one default recipe). Shrinking tries a single block first,
// then the default knobs, then fewer recipes (so a failing block can move to the front), then
// simpler recipes.
rc::Gen<QuantizeCase> quantize_cases(const CaseSpace& space);

// Every lane stride s >= 1 that a P x F tensor allows, ascending: the divisors of P*F/2.
std::vector<std::uint32_t> legal_lane_strides(std::size_t partitions, std::size_t free);

}  // namespace mxconform::properties
