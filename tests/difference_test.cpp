// The one compare step (mxconform/difference.h): block and element classes, the differing scale
// and data bytes (every differing element of a byte, up to a cap, unnamed rows when asked), on
// hand-derived cases (bfloat16 bit patterns worked out by hand; e4m3fn spacing 2^(e - 3),
// smallest normal 2^-6, largest 448).
#include "mxconform/difference.h"

#include <cstdint>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "mxconform/error.h"
#include "mxconform/profile.h"

namespace mxconform {
namespace {

QuantizeConfig config(OutputDtype output, std::size_t partitions, std::size_t free, ScaleLayout layout) {
  QuantizeConfig c;
  c.input = InputDtype::kBfloat16;
  c.output = output;
  c.partitions = partitions;
  c.free = free;
  c.scale_layout = layout;
  return c;
}

const QuantizeConfig kE4m3 = config(OutputDtype::kFloat8E4m3fn, 8, 4, ScaleLayout::kLogical);

TEST(ClassifyElement, SpecialInputs) {
  EXPECT_EQ(classify_element(kE4m3, 0x7FC0, 127), ElementClass::kNan);
  EXPECT_EQ(classify_element(kE4m3, 0xFF80, 127), ElementClass::kInf);
  EXPECT_EQ(classify_element(kE4m3, 0x8000, 127), ElementClass::kZero);
  EXPECT_EQ(classify_element(kE4m3, 0x0000, 127), ElementClass::kZero);
}

TEST(ClassifyElement, TiesAndSaturationAtTheBlockScale) {
  // 1.0625 = 8.5 steps of 1/8 in [1, 2): a tie. 1.125 = 9 steps: not.
  EXPECT_EQ(classify_element(kE4m3, 0x3F88, 127), ElementClass::kTie);
  EXPECT_EQ(classify_element(kE4m3, 0xBF88, 127), ElementClass::kTie);
  EXPECT_EQ(classify_element(kE4m3, 0x3F90, 127), ElementClass::kOrdinary);
  // 0x43E8 = 1.8125 * 2^8 = 464 > 448 saturates at scale 1; at E8M0 128 it is 232 = 14.5 steps
  // of 16 in [128, 256): a tie. 0x43E0 = 448 exactly: the largest value, not beyond it.
  EXPECT_EQ(classify_element(kE4m3, 0x43E8, 127), ElementClass::kSaturation);
  EXPECT_EQ(classify_element(kE4m3, 0x43E8, 128), ElementClass::kTie);
  EXPECT_EQ(classify_element(kE4m3, 0x43E0, 127), ElementClass::kOrdinary);
  // 0x3A80 = 2^-10: half the smallest subnormal step 2^-9, a tie (to zero).
  EXPECT_EQ(classify_element(kE4m3, 0x3A80, 127), ElementClass::kTie);
}

TEST(ClassifyBlock, ContentThenScale) {
  std::vector<std::uint16_t> block(32, 0);
  EXPECT_EQ(classify_block(kE4m3, block, 0, 0, 1), BlockClass::kZero);
  block[5] = 0x3F80;  // 1.0
  EXPECT_EQ(classify_block(kE4m3, block, 0, 0, 1), BlockClass::kClampLow);
  EXPECT_EQ(classify_block(kE4m3, block, 0, 0, 254), BlockClass::kLargestE8m0);
  EXPECT_EQ(classify_block(kE4m3, block, 0, 0, 119), BlockClass::kOrdinary);
  block[7] = 0xFF80;  // -Inf
  EXPECT_EQ(classify_block(kE4m3, block, 0, 0, 119), BlockClass::kInf);
  block[9] = 0x7FC0;  // NaN: before Inf
  EXPECT_EQ(classify_block(kE4m3, block, 0, 0, 119), BlockClass::kNan);
}

TEST(Compare, FirstScaleAndFirstDataDifferenceBoth) {
  // [8, 8] logical: two blocks side by side; element 13 (row 1, column 5) is 1.0, in block (0, 1).
  const QuantizeConfig c = config(OutputDtype::kFloat8E4m3fn, 8, 8, ScaleLayout::kLogical);
  std::vector<std::uint16_t> input(64, 0);
  input[13] = 0x3F80;
  const std::vector<std::uint8_t> expected_data(64, 0), expected_scale = {0x01, 0x01};
  std::vector<std::uint8_t> actual_data = expected_data, actual_scale = expected_scale;
  actual_scale[1] = 0x02;
  actual_data[13] = 0x05;
  actual_data[20] = 0x06;
  const Comparison r = compare(c, input, expected_data, expected_scale, actual_data, actual_scale);
  EXPECT_FALSE(r.equal());
  EXPECT_EQ(r.scale_differences, 1u);
  EXPECT_EQ(r.data_differences, 2u);
  ASSERT_TRUE(r.first_scale() && r.first_data());
  EXPECT_EQ(r.first(), r.first_scale()) << "a report leads with the scale byte";
  EXPECT_EQ(r.first_scale()->offset, 1u);
  EXPECT_EQ(r.first_scale()->group, 0u);
  EXPECT_EQ(r.first_scale()->column_block, 1u);
  EXPECT_EQ(r.first_scale()->block_class, BlockClass::kClampLow);
  EXPECT_EQ(r.first_scale()->element_class, ElementClass::kNotElement);
  EXPECT_EQ(*r.first_data()->element, 13u);
  EXPECT_EQ(r.first_data()->input_bits, 0x3F80);
  EXPECT_EQ(r.first_data()->column_block, 1u);
  EXPECT_EQ(r.first_data()->expected_e8m0, 0x01);
  EXPECT_EQ(r.first_data()->actual_e8m0, 0x02);
  EXPECT_EQ(r.first_data()->expected, 0x00);
  EXPECT_EQ(r.first_data()->actual, 0x05);
  EXPECT_NE(r.first_data()->to_string().find("element 13 (row 1, column 5), input 0x3F80"), std::string::npos)
      << r.first_data()->to_string();
  EXPECT_TRUE(compare(c, input, expected_data, expected_scale, expected_data, expected_scale).equal());
}

// Blocks of one row of 32 (1x32: scale [P][F/32]) and one column of 32 partitions (32x1: scale
// [P/32][F]): a differing element is placed in its own block and shown with that block's E8M0.
// (compare once read every block as 8x4 and indexed past the scale buffer.)
TEST(Compare, ElementsAreInTheirProfilesBlocks) {
  QuantizeConfig row = config(OutputDtype::kFloat8E4m3fn, 8, 64, ScaleLayout::kLogical);
  row.profile = ProfileId::kOcpFloor;
  row.block_shape = BlockShape::k1x32;
  std::vector<std::uint16_t> input(8 * 64, 0);
  std::vector<std::uint8_t> expected_data(8 * 64, 0), expected_scale(8 * 2, 0x01);
  expected_scale[5 * 2 + 1] = 0x7F;  // row 5, columns 32..63
  std::vector<std::uint8_t> actual_data = expected_data, actual_scale = expected_scale;
  actual_data[5 * 64 + 40] = 0x38;  // row 5, column 40
  Comparison r = compare(row, input, expected_data, expected_scale, actual_data, actual_scale);
  ASSERT_TRUE(r.first_data());
  EXPECT_EQ(r.first_data()->group, 5u);
  EXPECT_EQ(r.first_data()->column_block, 1u);
  EXPECT_EQ(r.first_data()->expected_e8m0, 0x7F);

  QuantizeConfig column = config(OutputDtype::kFloat8E4m3fn, 64, 4, ScaleLayout::kLogical);
  column.profile = ProfileId::kMicroxcaling;
  column.block_shape = BlockShape::k32x1;
  input.assign(64 * 4, 0);
  expected_data.assign(64 * 4, 0);
  expected_scale.assign(2 * 4, 0x01);
  expected_scale[1 * 4 + 3] = 0x80;  // partitions 32..63, column 3
  actual_data = expected_data;
  actual_scale = expected_scale;
  actual_data[40 * 4 + 3] = 0x38;  // partition 40, column 3
  r = compare(column, input, expected_data, expected_scale, actual_data, actual_scale);
  ASSERT_TRUE(r.first_data());
  EXPECT_EQ(r.first_data()->group, 1u);
  EXPECT_EQ(r.first_data()->column_block, 3u);
  EXPECT_EQ(r.first_data()->expected_e8m0, 0x80);
}

TEST(Compare, UnnamedPhysicalScaleRowsAreNotCompared) {
  // [40, 4] physical: block rows 0..3 in scale rows 0..3, block row 4 in row 32; rows 4..31 unnamed.
  const QuantizeConfig c = config(OutputDtype::kFloat8E4m3fn, 40, 4, ScaleLayout::kPhysical);
  const std::vector<std::uint16_t> input(160, 0);
  const std::vector<std::uint8_t> data(160, 0), expected_scale(33, 0x01);
  std::vector<std::uint8_t> actual_scale = expected_scale;
  actual_scale[10] = 0x77;
  EXPECT_TRUE(compare(c, input, data, expected_scale, data, actual_scale).equal());
  actual_scale[32] = 0x00;
  const Comparison r = compare(c, input, data, expected_scale, data, actual_scale);
  ASSERT_TRUE(r.first_scale());
  EXPECT_EQ(r.first_scale()->group, 4u);
  EXPECT_EQ(r.first_scale()->block_class, BlockClass::kZero);
}

TEST(Compare, Fp4NibblesMapBackToTheirElements) {
  // Byte 3 holds nibble positions 6 (low) and 7 (high) with high parity 1. Lane stride 2 (windows
  // of 4 nibbles, pairs reversed): position 6 holds element 4, position 7 element 5.
  QuantizeConfig c = config(OutputDtype::kFloat4E2m1fnX4, 8, 4, ScaleLayout::kLogical);
  const std::vector<std::uint16_t> input(32, 0);
  const std::vector<std::uint8_t> data(16, 0), scale(1, 0x01);
  std::vector<std::uint8_t> high = data, low = data;
  high[3] = 0x50;
  low[3] = 0x05;
  EXPECT_EQ(*compare(c, input, data, scale, high, scale).first_data()->element, 7u);
  EXPECT_EQ(*compare(c, input, data, scale, low, scale).first_data()->element, 6u);
  c.fp4_lane_stride = 2;
  EXPECT_EQ(*compare(c, input, data, scale, high, scale).first_data()->element, 5u);
  EXPECT_EQ(*compare(c, input, data, scale, low, scale).first_data()->element, 4u);
}

TEST(Compare, EveryDifferingElementOfAByteIsListed) {
  // Lane stride 2, high parity 1: byte 3 holds position 6 (low nibble, element 4) and position 7
  // (high nibble, element 5); elements 4 and 5 are row 1, columns 0 and 1 of block (0, 0).
  QuantizeConfig c = config(OutputDtype::kFloat4E2m1fnX4, 8, 4, ScaleLayout::kLogical);
  c.fp4_lane_stride = 2;
  const std::vector<std::uint16_t> input(32, 0);
  const std::vector<std::uint8_t> data(16, 0), expected_scale(1, 0x01), actual_scale(1, 0x02);
  std::vector<std::uint8_t> both = data;
  both[3] = 0x5A;
  const Comparison r = compare(c, input, data, expected_scale, both, actual_scale);
  ASSERT_TRUE(r.first_data());
  const std::vector<ElementDifference>& elements = r.first_data()->elements;
  ASSERT_EQ(elements.size(), 2u);
  EXPECT_EQ(elements[0].index, 4u);
  EXPECT_EQ(elements[0].high_nibble, std::optional<bool>(false));
  EXPECT_EQ(elements[0].expected_code, 0x0);
  EXPECT_EQ(elements[0].actual_code, 0xA);
  EXPECT_EQ(elements[1].index, 5u);
  EXPECT_EQ(elements[1].high_nibble, std::optional<bool>(true));
  EXPECT_EQ(elements[1].actual_code, 0x5);
  for (const ElementDifference& e : elements) {
    EXPECT_EQ(e.group, 0u);
    EXPECT_EQ(e.column_block, 0u);
    EXPECT_EQ(e.expected_e8m0, 0x01);
    EXPECT_EQ(e.actual_e8m0, 0x02);
  }
  EXPECT_EQ(*r.first_data()->element, 4u) << "the first of them";
  // FP8: one element per byte, no nibble.
  const QuantizeConfig e4m3 = config(OutputDtype::kFloat8E4m3fn, 8, 4, ScaleLayout::kLogical);
  std::vector<std::uint8_t> fp8(32, 0), fp8_actual = fp8;
  fp8_actual[9] = 0x38;
  const Comparison one = compare(e4m3, input, fp8, expected_scale, fp8_actual, expected_scale);
  ASSERT_EQ(one.first_data()->elements.size(), 1u);
  EXPECT_EQ(one.first_data()->elements[0].index, 9u);
  EXPECT_FALSE(one.first_data()->elements[0].high_nibble.has_value());
  EXPECT_EQ(one.first_data()->elements[0].actual_code, 0x38);
}

TEST(Compare, ReportsUpToMaxReportedOfEachKindAndCountsThemAll) {
  const std::vector<std::uint16_t> input(32, 0);
  const std::vector<std::uint8_t> data(32, 0), scale(1, 0x01);
  std::vector<std::uint8_t> actual = data;
  for (std::size_t i : {2u, 5u, 6u, 20u, 31u}) actual[i] = 0x01;
  CompareOptions options;
  options.max_reported = 3;
  const Comparison r = compare(kE4m3, input, data, scale, actual, scale, options);
  EXPECT_EQ(r.data_differences, 5u);
  ASSERT_EQ(r.data.size(), 3u);
  EXPECT_EQ(r.data[0].offset, 2u);
  EXPECT_EQ(r.data[1].offset, 5u);
  EXPECT_EQ(r.data[2].offset, 6u);
  EXPECT_TRUE(r.scale.empty());
  EXPECT_EQ(compare(kE4m3, input, data, scale, actual, scale).data.size(), 1u) << "one of each kind by default";
}

TEST(Compare, UnnamedPhysicalScaleRowsAreComparedWhenAsked) {
  // [40, 4] physical: rows 4..31 are named by no slot; the expected buffer holds their fill.
  const QuantizeConfig c = config(OutputDtype::kFloat8E4m3fn, 40, 4, ScaleLayout::kPhysical);
  const std::vector<std::uint16_t> input(160, 0);
  const std::vector<std::uint8_t> data(160, 0);
  std::vector<std::uint8_t> expected_scale(33, 0xFF);
  for (std::size_t row : {0u, 1u, 2u, 3u, 32u}) expected_scale[row] = 0x01;
  std::vector<std::uint8_t> actual_scale = expected_scale;
  actual_scale[10] = 0x00;
  CompareOptions options;
  options.check_unnamed_rows = true;
  const Comparison r = compare(c, input, data, expected_scale, data, actual_scale, options);
  EXPECT_EQ(r.scale_differences, 1u);
  ASSERT_TRUE(r.first_scale());
  EXPECT_FALSE(r.first_scale()->named_row);
  EXPECT_EQ(r.first_scale()->row, 10u);
  EXPECT_EQ(r.first_scale()->offset, 10u);
  EXPECT_TRUE(compare(c, input, data, expected_scale, data, actual_scale).equal()) << "skipped unless asked";
  actual_scale[32] = 0x02;
  options.max_reported = 2;
  const Comparison named = compare(c, input, data, expected_scale, data, actual_scale, options);
  ASSERT_EQ(named.scale.size(), 2u);
  EXPECT_TRUE(named.scale[1].named_row);
  EXPECT_EQ(named.scale[1].row, 32u);
  EXPECT_EQ(named.scale[1].group, 4u);
}

TEST(Difference, SignatureIsKindClassesAndKnobsNotShapeNorPlace) {
  Difference a;
  a.scale = true;
  a.block_class = BlockClass::kNan;
  a.config = config(OutputDtype::kFloat8E4m3fn, 8, 4, ScaleLayout::kPhysical);
  Difference b = a;
  b.config.partitions = 64;
  b.offset = 99;
  b.group = 7;
  EXPECT_EQ(a.signature(), b.signature());
  EXPECT_NE(a.signature().find("scale byte, nan-block"), std::string::npos) << a.signature();
  b.config.emax_mode = EmaxMode::kEmaxMinus1;
  EXPECT_NE(a.signature(), b.signature());
  b = a;
  b.scale = false;
  b.element = 0;
  b.element_class = ElementClass::kTie;
  EXPECT_NE(a.signature(), b.signature());
}

// The profile and block shape are part of the configuration a signature names: a 1x32 and a
// 32x1 failure are two groups. Neuron with 8x4 blocks keeps the text it always had.
TEST(Difference, SignatureNamesTheProfileAndBlockShapeOutsideNeuron) {
  Difference neuron;
  neuron.block_class = BlockClass::kOrdinary;
  neuron.element_class = ElementClass::kTie;
  neuron.config = config(OutputDtype::kFloat8E4m3fn, 8, 4, ScaleLayout::kPhysical);
  EXPECT_EQ(neuron.signature(), "data byte, ordinary-block, tie, input=bfloat16 output=float8_e4m3fn emax_mode=emax "
                                "fp8_nan=canonical scale_layout=physical");
  Difference rows = neuron;
  apply_profile(rows.config, ProfileId::kMicroxcaling);
  rows.config.partitions = 1;
  rows.config.free = 32;
  Difference columns = rows;
  columns.config.block_shape = BlockShape::k32x1;
  columns.config.partitions = 32;
  columns.config.free = 1;
  EXPECT_EQ(rows.signature(), "data byte, ordinary-block, tie, input=bfloat16 output=float8_e4m3fn emax_mode=emax "
                              "profile=microxcaling block=1x32 fp8_nan=canonical scale_layout=logical");
  EXPECT_EQ(columns.signature(), "data byte, ordinary-block, tie, input=bfloat16 output=float8_e4m3fn emax_mode=emax "
                                 "profile=microxcaling block=32x1 fp8_nan=canonical scale_layout=logical");
  Difference floor = rows;
  floor.config.profile = ProfileId::kOcpFloor;
  EXPECT_NE(floor.signature(), rows.signature());
}

TEST(Compare, WrongSizesAreAnError) {
  const std::vector<std::uint16_t> input(32, 0);
  const std::vector<std::uint8_t> data(32, 0), scale(1, 0), short_data(31, 0);
  EXPECT_THROW(compare(kE4m3, input, data, scale, short_data, scale), Error);
}

// Under a block-NaN profile the FP4 codes of a block whose expected scale is 0xFF are
// unspecified (docs/contract.md, "NaN and Inf in a block"): a device's 0x33 or 0x44 there is not a
// difference; a wrong code in a block of another scale is, and so is anything in FP8, or in FP4
// under neuron, whose field-255 rule specifies every code.
TEST(Compare, Fp4CodesUnderANanScaleAreUnspecifiedInBlockNanProfiles) {
  QuantizeConfig fp4 = config(OutputDtype::kFloat4E2m1fnX4, 1, 64, ScaleLayout::kLogical);
  fp4.profile = ProfileId::kOcpFloor;
  fp4.block_shape = BlockShape::k1x32;
  const std::vector<std::uint16_t> input(64, 0);
  const std::vector<std::uint8_t> expected_scale = {0xFF, 0x7F};  // columns 0..31 NaN, 32..63 not
  const std::vector<std::uint8_t> expected_data(32, 0x00);
  std::vector<std::uint8_t> actual_data(32, 0x00);
  for (std::size_t i = 0; i < 16; ++i) actual_data[i] = 0x33;  // the NaN block, as torchao on x86
  EXPECT_TRUE(compare(fp4, input, expected_data, expected_scale, actual_data, expected_scale).equal());
  const std::vector<std::uint8_t> adopted = with_unspecified_from(fp4, input, expected_scale, expected_data, actual_data);
  EXPECT_EQ(adopted, actual_data);
  actual_data[16] = 0x04;  // element 32's low nibble, in the block of scale 0x7F
  Comparison r = compare(fp4, input, expected_data, expected_scale, actual_data, expected_scale);
  EXPECT_EQ(r.data_differences, 1u);
  ASSERT_TRUE(r.first_data());
  EXPECT_EQ(r.first_data()->offset, 16u);
  EXPECT_EQ(with_unspecified_from(fp4, input, expected_scale, expected_data, actual_data)[16], 0x00);

  // The same bytes under neuron (8 x 4 blocks; FP4 NaN is a signed zero there): every 0x33 differs.
  QuantizeConfig neuron = config(OutputDtype::kFloat4E2m1fnX4, 8, 8, ScaleLayout::kLogical);
  const std::vector<std::uint8_t> neuron_scale = {0xFF, 0xFF};
  std::vector<std::uint8_t> neuron_actual(32, 0x33);
  EXPECT_EQ(compare(neuron, input, expected_data, neuron_scale, neuron_actual, neuron_scale).data_differences, 32u);

  // FP8 under a NaN scale in a block-NaN profile: the NaN code is specified.
  QuantizeConfig fp8 = config(OutputDtype::kFloat8E4m3fn, 1, 32, ScaleLayout::kLogical);
  fp8.profile = ProfileId::kOcpFloor;
  fp8.block_shape = BlockShape::k1x32;
  const std::vector<std::uint16_t> fp8_input(32, 0x7FC0);
  const std::vector<std::uint8_t> nan_scale = {0xFF};
  const std::vector<std::uint8_t> nan_codes(32, 0x7F), zeros(32, 0x00);
  EXPECT_EQ(compare(fp8, fp8_input, nan_codes, nan_scale, zeros, nan_scale).data_differences, 32u);
}

// Under transformer-engine-mxfp8 an input -0 may give 0x00 or 0x80 (its default kernel's FMA adds
// +0); any other byte there differs, and so does 0x00 for a negative input that is not -0, and
// 0x00 for -0 under ocp-floor.
TEST(Compare, TheSignOfAMinusZerosCodeIsUnspecifiedInTransformerEngine) {
  QuantizeConfig te = config(OutputDtype::kFloat8E4m3fn, 1, 32, ScaleLayout::kLogical);
  te.profile = ProfileId::kTransformerEngineMxfp8;
  te.block_shape = BlockShape::k1x32;
  std::vector<std::uint16_t> input(32, 0x3F80);  // 1.0
  input[0] = 0x8000;                             // -0
  input[1] = 0xB580;                             // -2^-20: scaled by 2^8 it is -2^-12, a -0 code
  const std::vector<std::uint8_t> scale = {0x77};
  std::vector<std::uint8_t> expected(32, 0x78);
  expected[0] = expected[1] = 0x80;
  std::vector<std::uint8_t> actual = expected;
  actual[0] = 0x00;
  EXPECT_TRUE(compare(te, input, expected, scale, actual, scale).equal());
  actual[0] = 0x01;
  EXPECT_EQ(compare(te, input, expected, scale, actual, scale).data_differences, 1u);
  actual[0] = 0x00;
  actual[1] = 0x00;
  EXPECT_EQ(compare(te, input, expected, scale, actual, scale).data_differences, 1u);
  QuantizeConfig floor = te;
  floor.profile = ProfileId::kOcpFloor;
  actual[1] = 0x80;
  EXPECT_EQ(compare(floor, input, expected, scale, actual, scale).data_differences, 1u);
}

}  // namespace
}  // namespace mxconform
