// Oracle versus every other compiled implementation on random blocks, every dtype and knob.
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

TEST(Differential, OracleAgreesWithEveryImplementationOnRandomBlocks) {
  std::printf("differential seed: %u\n", kSeed);
  ::testing::Test::RecordProperty("seed", std::to_string(kSeed));
  std::mt19937 rng(kSeed);
  // Widths cover the AVX2 chunks (64 columns, and 32 for a remainder of 32-63), their sums, and
  // every tail of 1..7 blocks after each.
  const std::size_t shapes[][2] = {{8, 4},  {8, 8},   {16, 4},  {8, 16},  {24, 8},  {32, 12},  {40, 4},
                                   {16, 32}, {8, 64},  {16, 36}, {8, 100}, {24, 128}, {8, 60},  {16, 92},
                                   {8, 160}, {136, 40}, {16, 96}, {8, 124}};
  const std::uint32_t strides[] = {0, 1, 2, 4, 8, 16, 3};
  const Implementation& oracle_impl = oracle::backend();
  std::vector<const Implementation*> subjects;
  for (const Implementation* impl : implementations()) {
    if (impl != &oracle_impl && runnable_here(*impl)) subjects.push_back(impl);
  }
  ASSERT_FALSE(subjects.empty());
  std::size_t blocks = 0;
  std::size_t iteration = 0;
  while (blocks < 100000) {
    QuantizeConfig config;
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
    ++iteration;
    validate(config);
    const Geometry g = geometry(config);
    const auto input = random_tensor(rng, config.input, config.partitions, config.free);
    std::vector<std::uint8_t> expected_data(g.data_bytes, 0xAA);
    std::vector<std::uint8_t> expected_scale(g.scale_bytes, 0xEE);
    oracle_impl.quantize(config, input.data(), expected_data.data(), expected_scale.data());
    for (const Implementation* subject : subjects) {
      std::vector<std::uint8_t> actual_data(g.data_bytes, 0x55);
      std::vector<std::uint8_t> actual_scale(g.scale_bytes, 0xEE);  // unnamed rows must keep 0xEE
      subject->quantize(config, input.data(), actual_data.data(), actual_scale.data());
      for (std::size_t i = 0; i < g.data_bytes; ++i) {
        ASSERT_EQ(expected_data[i], actual_data[i])
            << subject->name() << ": data byte " << i << " expected " << hex(expected_data, i) << " actual "
            << hex(actual_data, i) << "; " << describe(config) << "; seed " << kSeed << " iteration " << iteration - 1;
      }
      for (std::size_t i = 0; i < g.scale_bytes; ++i) {
        ASSERT_EQ(expected_scale[i], actual_scale[i])
            << subject->name() << ": scale byte " << i << " (row " << i / g.block_cols << ") expected "
            << hex(expected_scale, i) << " actual " << hex(actual_scale, i) << "; " << describe(config) << "; seed "
            << kSeed << " iteration " << iteration - 1;
      }
    }
    blocks += g.block_rows * g.block_cols;
  }
  for (const Implementation* subject : subjects) {
    std::printf("%s: %zu blocks in %zu tensors agree with the oracle\n", std::string(subject->name()).c_str(),
                blocks, iteration);
  }
}

}  // namespace
}  // namespace mxconform
