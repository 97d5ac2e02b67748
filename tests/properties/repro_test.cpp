// repro.cpp: the comparison names the differing element, its block and the block's E8M0, or a
// scale byte and whether a slot names its row; the text shows it all.
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
  const Comparison comparison = compare(repro);
  ASSERT_TRUE(comparison.first_data());
  EXPECT_FALSE(comparison.first_scale());
  const ElementDifference& e = comparison.first_data()->elements.at(0);
  EXPECT_EQ(e.index, 9u * 8 + 5);
  EXPECT_EQ(e.group, 1u);
  EXPECT_EQ(e.column_block, 1u);
  EXPECT_EQ(e.expected_code, 0x38);
  EXPECT_EQ(e.actual_code, 0x39);
  EXPECT_EQ(e.expected_e8m0, 0x7F);
  EXPECT_EQ(differing_elements(comparison), 2u);
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
  const Comparison comparison = compare(repro);
  EXPECT_FALSE(comparison.first_data());
  ASSERT_TRUE(comparison.first_scale());
  EXPECT_EQ(comparison.first_scale()->offset, 4u);
  EXPECT_FALSE(comparison.first_scale()->named_row);
  EXPECT_NE(format_repro(repro).find("a row no slot names"), std::string::npos);
}

}  // namespace
}  // namespace mxconform::properties
