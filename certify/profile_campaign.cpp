#include "profile_campaign.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "element_syntax.h"
#include "mxconform/error.h"

namespace mxconform::certify {
namespace {

std::string hex_value(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%a", value);
  return text;
}

// The boundary blocks of one output dtype, at scale 2^0 for every profile (the block max sets the
// scale: 256 for e4m3, 32768 for e5m2, 4 or 5 for FP4, whose floor, ceil and RCEIL scales agree).
std::vector<BlockSpec> boundary_blocks(OutputDtype output) {
  std::vector<BlockSpec> specs = {
      {"zero-block", {}},
      {"nan-in-block", {"nan", "1"}},
      {"inf-in-block", {"inf", "1"}},
      {"negative-inf-in-block", {"-inf", "1"}},
      {"smallest-normal-amax", {"0x1p-126", "0x1p-126"}},
      {"smallest-subnormal-amax", {"0x1p-133"}},
      {"small-amax.2^-120", {"0x1p-120", "0x1p-122"}},
      {"small-amax.2^-119", {"0x1p-119", "0x1p-121"}},
      {"large-amax.bf16-max", {"0x1.fcp127", "1"}},
  };
  const FormatInfo format = element_format(output);
  const double max = format.max_value;
  // amax on a power of two, one bf16 step above and below it, and at the format's max and past it.
  for (double amax : {1.0, 4.0, 0.5 * max, max, 2.0 * max}) {
    const double step = std::ldexp(1.0, std::ilogb(amax) - 7);  // bfloat16's spacing there
    specs.push_back({"amax.on." + hex_value(amax), {hex_value(amax), "1"}});
    specs.push_back({"amax.above." + hex_value(amax), {hex_value(amax + step), "1"}});
    specs.push_back({"amax.below." + hex_value(amax), {hex_value(amax - step / 2), "1"}});
  }
  if (is_fp4(output)) {
    specs.push_back({"fp4.ties", {"5", "0.25", "0.75", "1.25", "1.75", "2.5", "3.5", "4"}});
    specs.push_back({"fp4.amax-7", {"7", "3"}});
    specs.push_back({"fp4.saturation-edge", {"6.5", "-5"}});
    specs.push_back({"fp4.negative-tiny", {"4", "-0.125"}});
  } else if (output == OutputDtype::kFloat8E4m3fn || output == OutputDtype::kFloat8E4m3fnX4) {
    specs.push_back({"e4m3.tie.1.0625", {"256", "1.0625", "2.125", "136", "-1.0625"}});
    specs.push_back({"e4m3.tie.400", {"448", "400", "-400"}});
    specs.push_back({"e4m3.saturation-edge.480", {"480", "240"}});
    specs.push_back({"e4m3.saturation-edge.464", {"464", "1"}});
  } else {
    specs.push_back({"e5m2.tie.1.125", {"32768", "1.125", "1.375", "-1.125"}});
    specs.push_back({"e5m2.saturation-edge.61440", {"61440", "1"}});
  }
  return specs;
}

}  // namespace

void campaign_shape(QuantizeConfig& config) {
  const BlockExtent block = extent(config.block_shape);
  const auto per_container = static_cast<std::size_t>(info(config.output).elements_per_container);
  config.partitions = block.rows;
  config.free = block.cols % per_container == 0 ? block.cols : per_container;  // 32x1: 4 copies for x4
}

std::vector<std::uint16_t> block_copies(const QuantizeConfig& config, const std::vector<std::uint16_t>& block) {
  const BlockExtent shape = extent(config.block_shape);
  const std::size_t block_elements = shape.rows * shape.cols;
  const std::size_t copies = config.free / shape.cols;
  std::vector<std::uint16_t> input(config.partitions * config.free, 0);
  for (std::size_t copy = 0; copy < copies; ++copy) {
    for (std::size_t i = 0; i < block_elements; ++i) {
      // Copy k holds the block rotated by k elements: copy 0 is the block itself, and two copies
      // side by side differ wherever two neighbouring elements of the block do.
      const std::size_t from = (i + copy) % block_elements;
      const std::uint16_t bits = from < block.size() ? block[from] : 0;
      input[(i / shape.cols) * config.free + copy * shape.cols + i % shape.cols] = bits;
    }
  }
  return input;
}

std::vector<ProfileCase> single_block_cases(const QuantizeConfig& config, const std::vector<BlockSpec>& specs) {
  QuantizeConfig one = config;
  campaign_shape(one);
  if (is_fp4(one.output) && one.fp4_lane_stride != 0 && (one.partitions * one.free) % (2 * one.fp4_lane_stride) != 0) {
    one.fp4_lane_stride = 0;
  }
  validate(one);
  const BlockExtent block = extent(config.block_shape);
  std::vector<ProfileCase> cases;
  for (const BlockSpec& spec : specs) {
    std::vector<std::uint16_t> bits;
    try {
      for (std::size_t i = 0; i < spec.values.size() && i < block.rows * block.cols; ++i) {
        bits.push_back(corpus::parse_element(spec.values[i], one.input));
      }
    } catch (const Error&) {
      continue;  // a value this input dtype cannot hold (float16 has no 2^-126)
    }
    cases.push_back({spec.id, one, block_copies(one, bits)});
  }
  return cases;
}

std::vector<ProfileCase> multi_block_cases(const QuantizeConfig& config, const std::vector<BlockSpec>& specs) {
  const BlockExtent block = extent(config.block_shape);
  const auto per_container = static_cast<std::size_t>(info(config.output).elements_per_container);
  // Tensor shapes in blocks (rows of blocks x columns of blocks): more than four block rows (where
  // the physical scale layout parts from the logical one: logical row 4 is physical row 32), more
  // than 32 partitions, one block row, one block column where the shape allows, never square.
  // 1x32 blocks are one partition high: 33 block rows of one block give it more than 32.
  std::vector<std::pair<std::size_t, std::size_t>> shapes = {{5, 3}, {1, 8}, {9, 2}, {2, 5}};
  if (block.rows == 1) shapes.push_back({33, 1});
  std::vector<std::vector<std::uint16_t>> blocks;  // each spec's block, row-major, when the input holds it
  std::vector<std::string> ids;
  for (const BlockSpec& spec : specs) {
    std::vector<std::uint16_t> bits(block.rows * block.cols, 0);
    try {
      for (std::size_t i = 0; i < spec.values.size() && i < bits.size(); ++i) {
        bits[i] = corpus::parse_element(spec.values[i], config.input);
      }
    } catch (const Error&) {
      continue;
    }
    blocks.push_back(std::move(bits));
    ids.push_back(spec.id);
  }
  std::vector<ProfileCase> cases;
  if (blocks.empty()) return cases;
  std::size_t next = 0;  // the spec the next block gets, in turn across the tensors
  for (const auto& [block_rows, wanted_cols] : shapes) {
    QuantizeConfig shape = config;
    std::size_t block_cols = wanted_cols;
    while (block_cols * block.cols % per_container != 0) ++block_cols;  // x4 dtypes: F % 4 == 0
    shape.partitions = block_rows * block.rows;
    shape.free = block_cols * block.cols;
    try {
      validate(shape);
    } catch (const Error&) {
      continue;  // a lane stride this shape does not fit
    }
    ProfileCase c{"tensor." + std::to_string(shape.partitions) + "x" + std::to_string(shape.free) + ".from." +
                      ids[next % blocks.size()],
                  shape, std::vector<std::uint16_t>(shape.partitions * shape.free, 0)};
    for (std::size_t r = 0; r < block_rows; ++r) {
      for (std::size_t b = 0; b < block_cols; ++b) {
        const std::vector<std::uint16_t>& bits = blocks[next++ % blocks.size()];
        for (std::size_t i = 0; i < bits.size(); ++i) {
          c.input[(r * block.rows + i / block.cols) * shape.free + b * block.cols + i % block.cols] = bits[i];
        }
      }
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<ProfileCase> profile_cases(const QuantizeConfig& config, std::uint64_t seed, std::size_t random_blocks) {
  std::vector<BlockSpec> specs = boundary_blocks(config.output);
  // Seeded blocks: Gaussian values scaled by a power of two drawn across the input's range.
  std::mt19937_64 random(seed);
  std::normal_distribution<double> gaussian;
  std::uniform_int_distribution<int> exponent(config.input == InputDtype::kFloat16 ? -14 : -120,
                                              config.input == InputDtype::kFloat16 ? 12 : 120);
  for (std::size_t b = 0; b < random_blocks; ++b) {
    BlockSpec spec{"random." + std::to_string(b), {}};
    const int e = exponent(random);
    for (int i = 0; i < 32; ++i) {
      // Rounded to 8 significant bits so that both input dtypes hold it exactly.
      const double v = std::ldexp(std::round(std::ldexp(gaussian(random), 7)), e - 7);
      spec.values.push_back(hex_value(v));
    }
    specs.push_back(std::move(spec));
  }
  std::vector<ProfileCase> cases = single_block_cases(config, specs);
  // The same blocks side by side in tensors of several blocks, each block different from its
  // neighbours: a backend that scales every block by the first one's, writes one scale row over
  // another or swaps the nibbles of two columns fails here.
  // Boundary and seeded blocks interleaved, so that no tensor is only zero-padded boundary blocks.
  const std::size_t boundary = specs.size() - random_blocks;
  std::vector<BlockSpec> mixed;
  for (std::size_t i = 0; i < std::max(boundary, random_blocks); ++i) {
    if (i < boundary) mixed.push_back(specs[i]);
    if (i < random_blocks) mixed.push_back(specs[boundary + i]);
  }
  for (ProfileCase& c : multi_block_cases(config, mixed)) cases.push_back(std::move(c));
  return cases;
}

}  // namespace mxconform::certify
