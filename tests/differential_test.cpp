// Oracle versus every other compiled implementation on random blocks, every dtype and knob; an
// implementation this CPU cannot run is skipped with the reason.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mxconform/registry.h"
#include "oracle.h"

namespace mxconform {
namespace {

constexpr std::uint32_t kSeed = 20261202;

// Random bits, with some elements steered to specials, tiny and huge values.
std::uint16_t random_element(std::mt19937& rng, InputDtype dtype) {
  std::uniform_int_distribution<int> kind(0, 15);
  std::uniform_int_distribution<std::uint32_t> bits(0, 0xFFFF);
  const std::uint16_t any = static_cast<std::uint16_t>(bits(rng));
  const std::uint16_t sign = any & 0x8000;
  const int mantissa_bits = dtype == InputDtype::kBfloat16 ? 7 : 10;
  const std::uint16_t mantissa = any & ((1u << mantissa_bits) - 1);
  const std::uint16_t exp_all_ones = static_cast<std::uint16_t>(((dtype == InputDtype::kBfloat16 ? 0xFF : 0x1F)) << mantissa_bits);
  switch (kind(rng)) {
    case 0: return sign;                              // signed zero
    case 1: return sign | mantissa;                   // subnormal
    case 2: return sign | exp_all_ones;               // Inf
    case 3: return sign | exp_all_ones | 1 | mantissa;  // NaN
    default: return any;
  }
}

// Narrow the exponent range of a block so that its elements land near each other: otherwise most
// random blocks put everything except the max far below the grid.
std::vector<std::uint16_t> random_tensor(std::mt19937& rng, InputDtype dtype, std::size_t p, std::size_t f) {
  std::vector<std::uint16_t> t(p * f);
  std::uniform_int_distribution<int> style(0, 3);
  const int mantissa_bits = dtype == InputDtype::kBfloat16 ? 7 : 10;
  const int exp_max = dtype == InputDtype::kBfloat16 ? 0xFE : 0x1E;
  std::uniform_int_distribution<int> centre(1, exp_max);
  std::uniform_int_distribution<int> spread(-6, 2);
  for (auto& x : t) x = random_element(rng, dtype);
  if (style(rng) != 0) {
    const int c = centre(rng);
    for (auto& x : t) {
      if (((x >> mantissa_bits) & exp_max) == exp_max) continue;  // leave most specials
      const int e = std::min(exp_max, std::max(0, c + spread(rng)));
      x = static_cast<std::uint16_t>((x & ~(((exp_max + 1) - 1) << mantissa_bits)) | (e << mantissa_bits));
    }
  }
  return t;
}

std::string hex(const std::vector<std::uint8_t>& v, std::size_t at) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", v[at]);
  return buf;
}

// One random tensor with the oracle's bytes.
struct DifferentialCase {
  QuantizeConfig config;
  std::vector<std::uint16_t> input;
  std::vector<std::uint8_t> expected_data;
  std::vector<std::uint8_t> expected_scale;  // rows no slot names hold 0xEE
};

// The cases, built once and shared by every implementation's test: about 100000 blocks over every
// dtype, knob and shape below, from kSeed.
const std::vector<DifferentialCase>& differential_cases() {
  static const std::vector<DifferentialCase> kCases = [] {
    std::vector<DifferentialCase> cases;
    std::mt19937 rng(kSeed);
    // Widths cover the SIMD chunks (64 columns, and 32 for a remainder of 32-63), their sums,
    // and every tail of 1..7 blocks after each.
    const std::size_t shapes[][2] = {{8, 4},  {8, 8},   {16, 4},  {8, 16},  {24, 8},  {32, 12},  {40, 4},
                                     {16, 32}, {8, 64},  {16, 36}, {8, 100}, {24, 128}, {8, 60},  {16, 92},
                                     {8, 160}, {136, 40}, {16, 96}, {8, 124}};
    const std::uint32_t strides[] = {0, 1, 2, 4, 8, 16, 3};
    std::size_t blocks = 0;
    for (std::size_t iteration = 0; blocks < 100000; ++iteration) {
      DifferentialCase c;
      QuantizeConfig& config = c.config;
      config.input = iteration % 2 == 0 ? InputDtype::kBfloat16 : InputDtype::kFloat16;
      config.output = output_dtypes()[(iteration / 2) % output_dtypes().size()].id;
      const auto& shape = shapes[(iteration / 10) % (sizeof shapes / sizeof shapes[0])];
      config.partitions = shape[0];
      config.free = shape[1];
      config.emax_mode = (iteration / 3) % 2 == 0 ? EmaxMode::kEmax : EmaxMode::kEmaxMinus1;
      config.fp8_nan = (iteration / 7) % 2 == 0 ? Fp8NanPolicy::kCanonical : Fp8NanPolicy::kZero;
      config.scale_layout = (iteration / 5) % 2 == 0 ? ScaleLayout::kPhysical : ScaleLayout::kLogical;
      config.fp4_high_parity = static_cast<int>((iteration / 11) % 2);
      config.fp4_lane_stride = strides[(iteration / 13) % (sizeof strides / sizeof strides[0])];
      if ((config.partitions * config.free) % (2 * std::max<std::uint32_t>(1, config.fp4_lane_stride)) != 0) {
        config.fp4_lane_stride = 0;
      }
      validate(config);
      const Geometry g = geometry(config);
      c.input = random_tensor(rng, config.input, config.partitions, config.free);
      c.expected_data.assign(g.data_bytes, 0xAA);
      c.expected_scale.assign(g.scale_bytes, 0xEE);
      oracle::backend().quantize(config, c.input.data(), c.expected_data.data(), c.expected_scale.data());
      cases.push_back(std::move(c));
      blocks += g.block_rows * g.block_cols;
    }
    return cases;
  }();
  return kCases;
}

// Every compiled implementation but the oracle; one that this CPU cannot run is skipped with the
// reason, never passed silently.
std::vector<const Subject*> subjects() {
  std::vector<const Subject*> out;
  for (const Subject* impl : built_in_subjects()) {
    if (impl != &oracle::backend()) out.push_back(impl);
  }
  return out;
}

class Differential : public ::testing::TestWithParam<const Subject*> {};

TEST_P(Differential, OracleAgreesOnRandomBlocks) {
  const Subject* subject = GetParam();
  if (!runnable_here(*subject)) GTEST_SKIP() << subject->name() << ": " << not_runnable_reason(*subject);
  std::printf("differential seed: %u\n", kSeed);
  ::testing::Test::RecordProperty("seed", std::to_string(kSeed));
  std::size_t blocks = 0;
  std::size_t iteration = 0;
  for (const DifferentialCase& c : differential_cases()) {
    const QuantizeConfig& config = c.config;
    const Geometry g = geometry(config);
    std::vector<std::uint8_t> actual_data(g.data_bytes, 0x55);
    std::vector<std::uint8_t> actual_scale(g.scale_bytes, 0xEE);  // unnamed rows must keep 0xEE
    subject->quantize(config, c.input.data(), actual_data.data(), actual_scale.data());
    for (std::size_t i = 0; i < g.data_bytes; ++i) {
      ASSERT_EQ(c.expected_data[i], actual_data[i])
          << subject->name() << ": data byte " << i << " expected " << hex(c.expected_data, i) << " actual "
          << hex(actual_data, i) << "; " << describe(config) << "; seed " << kSeed << " iteration " << iteration;
    }
    for (std::size_t i = 0; i < g.scale_bytes; ++i) {
      ASSERT_EQ(c.expected_scale[i], actual_scale[i])
          << subject->name() << ": scale byte " << i << " (row " << i / g.block_cols << ") expected "
          << hex(c.expected_scale, i) << " actual " << hex(actual_scale, i) << "; " << describe(config) << "; seed "
          << kSeed << " iteration " << iteration;
    }
    blocks += g.block_rows * g.block_cols;
    ++iteration;
  }
  std::printf("%s: %zu blocks in %zu tensors agree with the oracle\n", std::string(subject->name()).c_str(), blocks,
              iteration);
}

INSTANTIATE_TEST_SUITE_P(EveryImplementation, Differential, ::testing::ValuesIn(subjects()),
                         [](const ::testing::TestParamInfo<const Subject*>& info) {
                           std::string text(info.param->name());
                           for (char& c : text) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return text;
                         });

}  // namespace
}  // namespace mxconform
