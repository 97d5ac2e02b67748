#pragma once
// What the case generator draws from, and a seeded draw from it for campaigns that run cases
// rather than properties (certify, export): this interface names no RapidCheck type.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "quantize_case.h"

namespace mxconform::properties {

// What a property or campaign draws its cases from.
struct CaseSpace {
  std::vector<OutputDtype> outputs;  // at least one
  std::size_t max_block_rows = 16;   // P up to 8 * max_block_rows
  std::size_t max_block_cols = 128;  // F up to 4 * max_block_cols
};

// The largest generation size: Debian's RapidCheck misbehaves above 100.
constexpr int kMaxGenerationSize = 100;

// The case quantize_cases(space) (case_gen.h) draws from `seed` at generation size `size`
// (clamped to [0, kMaxGenerationSize]), unshrunk. The same space, seed and size give the same case.
QuantizeCase draw_case(const CaseSpace& space, std::uint64_t seed, int size);

}  // namespace mxconform::properties
