#pragma once
// The profile campaign: single-block cases aimed at the boundaries of a configuration's profile
// (its ties, its saturation edge, amax on, just above and just below powers of two for the ceil
// rules, zero blocks, NaN and Inf) plus a few seeded blocks of every magnitude, then the same blocks
// side by side in tensors of several blocks (more than four block rows, more than 32 partitions,
// one block row, never square), each block different from its neighbours. certify runs it for
// every profile other than neuron, whose campaigns (exhaustive, properties) are Neuron's own;
// fingerprint's deciding cases are a fixed subset of the same values.
#include <cstdint>
#include <string>
#include <vector>

#include "mxconform/quantize_config.h"

namespace mxconform::certify {

struct ProfileCase {
  std::string id;                    // e.g. "tie.1.0625", "amax.above.4", "tensor.40x12.from.zero-block"
  QuantizeConfig config;             // `config` with the shape of campaign_shape, or a tensor's shape
  std::vector<std::uint16_t> input;  // P*F elements, row-major
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

// The input of one block (row-major within it; missing elements 0) in `config`'s shape, that of
// campaign_shape: where it holds several copies of the block side by side (32x1 with an x4 dtype),
// copy k is the block rotated by k elements, so that neighbouring columns differ.
std::vector<std::uint16_t> block_copies(const QuantizeConfig& config, const std::vector<std::uint16_t>& block);

// Single-block cases of `config` (dtypes, knobs, profile; any shape) built from `specs`: each spec
// fills one block, laid out by block_copies.
std::vector<ProfileCase> single_block_cases(const QuantizeConfig& config, const std::vector<BlockSpec>& specs);

// Tensors of several blocks of `config`'s block shape, the blocks of `specs` in turn (left out: a
// spec the input dtype cannot hold); ids "tensor.PxF.from.<first block's spec>". A tensor shape
// that config's knobs do not admit is left out.
std::vector<ProfileCase> multi_block_cases(const QuantizeConfig& config, const std::vector<BlockSpec>& specs);

// The campaign: the boundary blocks of config's output dtype, then `random_blocks` seeded blocks,
// each alone, then all of them in the tensors of multi_block_cases.
std::vector<ProfileCase> profile_cases(const QuantizeConfig& config, std::uint64_t seed, std::size_t random_blocks);

}  // namespace mxconform::certify
