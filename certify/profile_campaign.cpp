#include "profile_campaign.h"

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

std::vector<ProfileCase> single_block_cases(const QuantizeConfig& config, const std::vector<BlockSpec>& specs) {
  QuantizeConfig one = config;
  campaign_shape(one);
  const BlockExtent block = extent(config.block_shape);
  const std::size_t copies = one.free / block.cols;
  if (is_fp4(one.output) && one.fp4_lane_stride != 0 && (one.partitions * one.free) % (2 * one.fp4_lane_stride) != 0) {
    one.fp4_lane_stride = 0;
  }
  validate(one);
  const std::size_t block_elements = block.rows * block.cols;
  std::vector<ProfileCase> cases;
  for (const BlockSpec& spec : specs) {
    ProfileCase c{spec.id, one, std::vector<std::uint16_t>(one.partitions * one.free, 0)};
    try {
      for (std::size_t i = 0; i < spec.values.size() && i < block_elements; ++i) {
        const std::uint16_t bits = corpus::parse_element(spec.values[i], one.input);
        // Element i of the block (row-major within it) in each copy.
        for (std::size_t copy = 0; copy < copies; ++copy) {
          c.input[(i / block.cols) * one.free + copy * block.cols + i % block.cols] = bits;
        }
      }
    } catch (const Error&) {
      continue;  // a value this input dtype cannot hold (float16 has no 2^-126)
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
  return single_block_cases(config, specs);
}

}  // namespace mxconform::certify
