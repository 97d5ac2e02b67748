// grade_call and block_of_site (certify/call_grade.h): hand-built outputs against hand-built
// expected bytes; the layout facts come from the contract (scale slot of group 4 is row 32).
#include "call_grade.h"

#include <gtest/gtest.h>

namespace mxconform::certify {
namespace {

// 40 partitions (5 groups) x 8 columns of FP8: physical scale rows 0-3 and 32 are named, 4-31 not.
QuantizeConfig five_groups() {
  QuantizeConfig config;
  config.output = OutputDtype::kFloat8E4m3fn;
  config.partitions = 40;
  config.free = 8;
  return config;
}

// A profile's configuration of shape [P, F] with `shape` blocks.
QuantizeConfig profile_config(ProfileId id, BlockShape shape, OutputDtype output, std::size_t partitions, std::size_t free) {
  QuantizeConfig config;
  config.output = output;
  apply_profile(config, id);
  config.block_shape = shape;
  config.partitions = partitions;
  config.free = free;
  return config;
}

// An all-zero input of the configuration's size (what grade_call reads of the input: the elements
// whose codes the contract leaves unspecified, none in these configurations).
std::vector<std::uint16_t> no_input(const QuantizeConfig& config) {
  return std::vector<std::uint16_t>(config.partitions * config.free, 0);
}

// Input element i holds the bit pattern i: a block's inputs say where they came from.
std::vector<std::uint16_t> numbered_input(const QuantizeConfig& config) {
  std::vector<std::uint16_t> input(config.partitions * config.free);
  for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<std::uint16_t>(i);
  return input;
}

struct Buffers {
  std::vector<std::uint8_t> data, scale, zero_rows;
  explicit Buffers(const QuantizeConfig& config)
      : data(config.partitions * config.free, 0x11), scale(33 * 2, 0), zero_rows(33 * 2, 0) {
    for (std::size_t row : {0, 1, 2, 3, 32}) scale[row * 2] = scale[row * 2 + 1] = 0x7F;
  }
};

TEST(GradeCall, IdenticalBytesPass) {
  const QuantizeConfig config = five_groups();
  const Buffers expected(config);
  EXPECT_EQ(grade_call(config, no_input(config), expected.data, expected.scale, expected.zero_rows.data(), expected.data, expected.scale).outcome,
            Outcome::kPass);
}

TEST(GradeCall, ADataByteIsAWrongResultNamingTheByte) {
  const QuantizeConfig config = five_groups();
  const Buffers expected(config);
  Buffers actual(config);
  actual.data[77] = 0x12;
  const CallGrade grade = grade_call(config, no_input(config), expected.data, expected.scale, expected.zero_rows.data(), actual.data, actual.scale);
  EXPECT_EQ(grade.outcome, Outcome::kWrongResult);
  EXPECT_EQ(grade.site, "data 77");
  EXPECT_EQ(grade.detail, "data byte 77: expected 0x11, actual 0x12");
}

TEST(GradeCall, AnUnnamedRowMustKeepWhatItHeldBefore) {
  const QuantizeConfig config = five_groups();
  const Buffers expected(config);
  Buffers actual(config);
  actual.scale[4 * 2 + 1] = 0x01;  // row 4: no slot names it
  const CallGrade grade = grade_call(config, no_input(config), expected.data, expected.scale, expected.zero_rows.data(), actual.data, actual.scale);
  EXPECT_EQ(grade.outcome, Outcome::kWriteUnnamedScaleRow);
  EXPECT_EQ(grade.site, "scale 9");
  // The same byte is right when the row held it before the call (certify's pre-fill).
  std::vector<std::uint8_t> before = expected.zero_rows;
  before[9] = 0x01;
  EXPECT_EQ(grade_call(config, no_input(config), expected.data, expected.scale, before.data(), actual.data, actual.scale).outcome, Outcome::kPass);
}

TEST(GradeCall, ANamedScaleByteIsAWrongResultBeforeAnyDataByte) {
  const QuantizeConfig config = five_groups();
  const Buffers expected(config);
  Buffers actual(config);
  actual.data[0] = 0;
  actual.scale[32 * 2] = 0x80;  // group 4's row
  const CallGrade grade = grade_call(config, no_input(config), expected.data, expected.scale, expected.zero_rows.data(), actual.data, actual.scale);
  EXPECT_EQ(grade.outcome, Outcome::kWrongResult);
  EXPECT_EQ(grade.site, "scale 64");
}

TEST(BlockOfSite, ADataByteGivesItsBlockAlone) {
  const QuantizeConfig config = five_groups();
  const std::vector<std::uint16_t> input = numbered_input(config);
  QuantizeConfig block;
  std::vector<std::uint16_t> block_input;
  // Byte 8 * 17 + 5: row 17, column 5 -> group 2, block column 1.
  ASSERT_TRUE(block_of_site(config, input, "data 141", block, block_input));
  EXPECT_EQ(block.partitions, 8u);
  EXPECT_EQ(block.free, 4u);
  ASSERT_EQ(block_input.size(), 32u);
  EXPECT_EQ(block_input[0], 16 * 8 + 4);   // row 16, column 4
  EXPECT_EQ(block_input[31], 23 * 8 + 7);  // row 23, column 7
}

TEST(BlockOfSite, AScaleByteGivesTheGroupItsRowHolds) {
  const QuantizeConfig config = five_groups();
  const std::vector<std::uint16_t> input = numbered_input(config);
  QuantizeConfig block;
  std::vector<std::uint16_t> block_input;
  ASSERT_TRUE(block_of_site(config, input, "scale 65", block, block_input));  // row 32 (group 4), column 1
  EXPECT_EQ(block_input[0], 32 * 8 + 4);
  EXPECT_FALSE(block_of_site(config, input, "scale 9", block, block_input));  // row 4: no group
  EXPECT_FALSE(block_of_site(config, input, "data 320", block, block_input));  // past the end
  EXPECT_FALSE(block_of_site(config, input, "input 3", block, block_input));
}

// A 1x32 block is 32 consecutive elements of one row (ocp-floor's geometry): with P = 2, F = 64
// FP8 byte 100 is row 1, column 36, so block column 1 of row 1: elements 96..127.
TEST(BlockOfSite, A1x32BlockIsOneRowOf32) {
  const QuantizeConfig config = profile_config(ProfileId::kOcpFloor, BlockShape::k1x32, OutputDtype::kFloat8E4m3fn, 2, 64);
  const std::vector<std::uint16_t> input = numbered_input(config);
  QuantizeConfig block;
  std::vector<std::uint16_t> block_input;
  ASSERT_TRUE(block_of_site(config, input, "data 100", block, block_input));
  EXPECT_EQ(block.partitions, 1u);
  EXPECT_EQ(block.free, 32u);
  ASSERT_EQ(block_input.size(), 32u);
  EXPECT_EQ(block_input[0], 96);
  EXPECT_EQ(block_input[31], 127);
  // Scale tensor [P][F/32]: byte 2 is row 1's first block.
  ASSERT_TRUE(block_of_site(config, input, "scale 2", block, block_input));
  EXPECT_EQ(block_input[0], 64);
  EXPECT_FALSE(block_of_site(config, input, "scale 4", block, block_input));  // past [2][2]
}

// A 32x1 block is one column of 32 partitions: with P = 64, F = 2 FP8 byte 67 is row 33,
// column 1, so group 1, column 1: elements (32 + r) * 2 + 1.
TEST(BlockOfSite, A32x1BlockIsOneColumnOf32) {
  const QuantizeConfig config =
      profile_config(ProfileId::kMicroxcaling, BlockShape::k32x1, OutputDtype::kFloat8E4m3fn, 64, 2);
  const std::vector<std::uint16_t> input = numbered_input(config);
  QuantizeConfig block;
  std::vector<std::uint16_t> block_input;
  ASSERT_TRUE(block_of_site(config, input, "data 67", block, block_input));
  EXPECT_EQ(block.partitions, 32u);
  EXPECT_EQ(block.free, 1u);
  ASSERT_EQ(block_input.size(), 32u);
  EXPECT_EQ(block_input[0], 32 * 2 + 1);
  EXPECT_EQ(block_input[31], 63 * 2 + 1);
  ASSERT_TRUE(block_of_site(config, input, "scale 2", block, block_input));  // [P/32][F]: group 1, column 0
  EXPECT_EQ(block_input[0], 64);
  EXPECT_EQ(block_input[1], 66);
}

// FP4 with 32x1 blocks: a [32, 1] case would break the x4 rule (F % 4 == 0), so the block comes
// as the aligned [32, 4] window holding it. With P = 32, F = 8 a row is 4 bytes: byte 5 is row 1,
// elements 2 and 3 (block columns 2 and 3), in the window of columns 0-3.
TEST(BlockOfSite, A32x1Fp4BlockComesAsItsFourColumnWindow) {
  const QuantizeConfig config =
      profile_config(ProfileId::kMicroxcaling, BlockShape::k32x1, OutputDtype::kFloat4E2m1fnX4, 32, 8);
  const std::vector<std::uint16_t> input = numbered_input(config);
  QuantizeConfig block;
  std::vector<std::uint16_t> block_input;
  ASSERT_TRUE(block_of_site(config, input, "data 5", block, block_input));
  EXPECT_EQ(block.partitions, 32u);
  EXPECT_EQ(block.free, 4u);
  EXPECT_NO_THROW(validate(block));
  ASSERT_EQ(block_input.size(), 128u);
  EXPECT_EQ(block_input[0], 0);
  EXPECT_EQ(block_input[4], 8);             // row 1, column 0
  EXPECT_EQ(block_input[127], 31 * 8 + 3);  // row 31, column 3
  // Scale byte 6 is block column 6: the window of columns 4-7.
  ASSERT_TRUE(block_of_site(config, input, "scale 6", block, block_input));
  EXPECT_EQ(block_input[0], 4);
}

}  // namespace
}  // namespace mxconform::certify
