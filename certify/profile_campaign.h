#pragma once
// The profile campaign: single-block cases aimed at the boundaries of a configuration's profile
// (its ties, its saturation edge, amax on, just above and just below powers of two for the ceil
// rules, zero blocks, NaN and Inf) plus a few seeded blocks of every magnitude. certify runs it for
// every profile other than neuron, whose campaigns (exhaustive, properties) are Neuron's own;
// fingerprint's deciding cases are a fixed subset of the same values.
#include <cstdint>
#include <string>
#include <vector>

#include "mxconform/quantize_config.h"

namespace mxconform::certify {

struct ProfileCase {
  std::string id;                    // e.g. "tie.1.0625", "amax.above.4"
  QuantizeConfig config;             // `config` with the shape of campaign_shape
  std::vector<std::uint16_t> input;  // P*F elements, row-major: the block, once per copy
};

// The shape of the campaign's cases: one block of config's block shape; where an x4 output dtype
// needs F a multiple of 4 and the block is narrower (32x1), as many copies of the block side by
// side as make F = 4. Sets config.partitions and config.free.
void campaign_shape(QuantizeConfig& config);

// One block's values, as corpus element spellings ("1.0625", "inf", "0x1p-126"); unlisted
// elements are 0. A block one of whose values the input dtype cannot hold exactly is left out.
struct BlockSpec {
  std::string id;
  std::vector<std::string> values;
};

// Single-block cases of `config` (dtypes, knobs, profile; any shape) built from `specs`: each spec
// fills one block (row-major within it), repeated in every copy campaign_shape makes.
std::vector<ProfileCase> single_block_cases(const QuantizeConfig& config, const std::vector<BlockSpec>& specs);

// The campaign: the boundary blocks of config's output dtype, then `random_blocks` seeded blocks.
std::vector<ProfileCase> profile_cases(const QuantizeConfig& config, std::uint64_t seed, std::size_t random_blocks);

}  // namespace mxconform::certify
