// repro.cpp: the first difference names the element, its block and the block's E8M0, or a scale
// byte and whether a slot names its row; the text shows it all.
#include "repro.h"

#include <gtest/gtest.h>

namespace mxconform::properties {
namespace {

Repro fp8_repro(std::size_t partitions, std::size_t free) {
  Repro repro;
  repro.property = "differential";
  repro.subject = "test";
  repro.expectation = "hand-made";
  repro.config.partitions = partitions;
  repro.config.free = free;
  repro.input.assign(partitions * free, 0x3F80);
  const Geometry g = geometry(repro.config);
  repro.expected = {std::vector<std::uint8_t>(g.data_bytes, 0x38), std::vector<std::uint8_t>(g.scale_bytes, 0x7F)};
  repro.actual = repro.expected;
  return repro;
}

TEST(Repro, FirstDifferenceIsAnElementWithItsBlockAndE8m0) {
  Repro repro = fp8_repro(16, 8);
  repro.actual.data[9 * 8 + 5] = 0x39;  // row 9, column 5: block (1, 1)
  repro.actual.data[15 * 8 + 7] = 0x3A;
  const Difference d = first_difference(repro);
  EXPECT_EQ(d.kind, Difference::Kind::kElement);
  EXPECT_EQ(d.element, 9u * 8 + 5);
  EXPECT_EQ(d.block_row, 1u);
  EXPECT_EQ(d.block_col, 1u);
  EXPECT_EQ(d.expected_code, 0x38);
  EXPECT_EQ(d.actual_code, 0x39);
  EXPECT_EQ(d.expected_e8m0, 0x7F);
  EXPECT_EQ(d.differing_elements, 2u);
  const std::string text = format_repro(repro);
  EXPECT_NE(text.find("first difference: element [9][5] (flat 77, input 0x3F80 = 1) of block (1, 1)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[39]"), std::string::npos) << text;
}

TEST(Repro, AWrittenRowThatNoSlotNamesIsReported) {
  Repro repro = fp8_repro(40, 4);  // five block rows: physical rows 0..3 and 32; rows 4..31 unnamed
  repro.expected.scale.assign(repro.expected.scale.size(), 0xEE);
  repro.actual.scale = repro.expected.scale;
  repro.actual.scale[4] = 0x7F;
  const Difference d = first_difference(repro);
  EXPECT_EQ(d.kind, Difference::Kind::kScale);
  EXPECT_EQ(d.scale_byte, 4u);
  EXPECT_FALSE(d.named_row);
  EXPECT_NE(format_repro(repro).find("a row no slot names"), std::string::npos);
}

}  // namespace
}  // namespace mxconform::properties
