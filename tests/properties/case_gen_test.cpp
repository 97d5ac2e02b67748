// case_gen.cpp: cases are valid and stay in their space; strides are the divisors the rule allows;
// draw_case (case_space.h) is the generator's draw by seed, repeatable and clamped in size.
#include "case_gen.h"

#include <gtest/gtest.h>

namespace mxconform::properties {
namespace {

TEST(CaseGen, LegalLaneStridesAreTheDivisorsOfHalfTheElements) {
  EXPECT_EQ(legal_lane_strides(8, 4), (std::vector<std::uint32_t>{1, 2, 4, 8, 16}));
  EXPECT_EQ(legal_lane_strides(24, 4), (std::vector<std::uint32_t>{1, 2, 3, 4, 6, 8, 12, 16, 24, 48}));
  for (std::uint32_t stride : legal_lane_strides(40, 12)) EXPECT_EQ(40 * 12 % (2 * stride), 0u);
}

TEST(CaseGen, CasesAreValidAndStayInTheirSpace) {
  CaseSpace space;
  space.outputs = {OutputDtype::kFloat4E2m1fnX4, OutputDtype::kFloat8E5m2};
  space.max_block_rows = 5;
  space.max_block_cols = 7;
  const auto cases = quantize_cases(space);
  bool largest = false;
  for (int seed = 0; seed < 300; ++seed) {
    const QuantizeCase c = cases(rc::Random(seed), seed % (rc::kNominalSize + 1)).value();
    ASSERT_NO_THROW(validate(c.config));
    EXPECT_TRUE(c.config.output == space.outputs[0] || c.config.output == space.outputs[1]);
    EXPECT_LE(c.config.partitions, space.max_block_rows * kBlockRows);
    EXPECT_LE(c.config.free, space.max_block_cols * kBlockCols);
    EXPECT_EQ(c.input.size(), c.config.partitions * c.config.free);
    largest = largest || (c.config.partitions == 40 && c.config.free == 28);
  }
  EXPECT_TRUE(largest) << "the largest shape is drawn about once in 16 cases";
}

TEST(CaseGen, SizeZeroIsOneBlock) {
  CaseSpace space;
  space.outputs = {OutputDtype::kFloat8E4m3fn};
  const auto cases = quantize_cases(space);
  int single = 0;
  for (int seed = 0; seed < 100; ++seed) {
    const QuantizeCase c = cases(rc::Random(seed), 0).value();
    single += c.config.partitions == kBlockRows && c.config.free == kBlockCols;
  }
  EXPECT_GT(single, 80);  // all but the largest-shape draws
}

TEST(CaseGen, DrawCaseIsTheGeneratorsDrawForThatSeedAndSize) {
  CaseSpace space;
  space.outputs = {OutputDtype::kFloat4E2m1fnX4, OutputDtype::kFloat8E4m3fn};
  space.max_block_rows = 4;
  space.max_block_cols = 6;
  const auto cases = quantize_cases(space);
  int distinct = 0;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    const int size = static_cast<int>(seed * 7 % (kMaxGenerationSize + 1));
    const QuantizeCase drawn = draw_case(space, seed, size);
    EXPECT_TRUE(drawn == cases(rc::Random(seed), size).value()) << "seed " << seed << ", size " << size;
    EXPECT_TRUE(drawn == draw_case(space, seed, size)) << "seed " << seed << ": the same draw twice";
    distinct += !(drawn == draw_case(space, seed + 1000, size));
  }
  EXPECT_GT(distinct, 30) << "other seeds draw other cases";
}

TEST(CaseGen, DrawCaseClampsTheSizeToTheSafeRange) {
  CaseSpace space;
  space.outputs = {OutputDtype::kFloat8E5m2};
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    EXPECT_TRUE(draw_case(space, seed, 1000) == draw_case(space, seed, kMaxGenerationSize)) << seed;
    EXPECT_TRUE(draw_case(space, seed, -5) == draw_case(space, seed, 0)) << seed;
  }
}

}  // namespace
}  // namespace mxconform::properties
