// properties/element_gen.cpp: the TestFloat-style element tables, checked against what their
// declarations promise, with the bit patterns of bfloat16 and float16 written out by hand.
#include "element_gen.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

namespace mxconform::properties {
namespace {

struct Layout {
  InputDtype dtype;
  int mantissa_bits;
  std::uint16_t exponent_mask;  // the exponent field in place
  std::uint16_t one;            // 1.0
  std::uint16_t inf;
  std::uint16_t quiet_nan;      // the canonical quiet NaN
  std::uint32_t bias;
};
const Layout kBfloat16{InputDtype::kBfloat16, 7, 0x7F80, 0x3F80, 0x7F80, 0x7FC0, 127};
const Layout kFloat16{InputDtype::kFloat16, 10, 0x7C00, 0x3C00, 0x7C00, 0x7E00, 15};

template <class T>
bool distinct(const std::vector<T>& values) {
  return std::set<T>(values.begin(), values.end()).size() == values.size();
}

TEST(ElementGen, SignificandPatternsHoldEveryNamedPatternOnceSimplestFirst) {
  for (const int bits : {1, 3, 7, 10}) {
    const std::vector<std::uint32_t> patterns = significand_patterns(bits);
    const std::uint32_t ones = (std::uint32_t{1} << bits) - 1;
    ASSERT_GE(patterns.size(), 2u);
    EXPECT_EQ(patterns[0], 0u) << bits;
    EXPECT_EQ(patterns[1], ones) << bits;
    EXPECT_TRUE(distinct(patterns)) << bits;
    const std::set<std::uint32_t> all(patterns.begin(), patterns.end());
    for (int i = 0; i < bits; ++i) {
      const std::uint32_t one = std::uint32_t{1} << i;
      EXPECT_EQ(all.count(one), 1u) << "walking one " << i << " of " << bits;
      EXPECT_EQ(all.count(ones & ~one), 1u) << "walking zero " << i << " of " << bits;
      const std::uint32_t trailing = (std::uint32_t{1} << (i + 1)) - 1;
      EXPECT_EQ(all.count(trailing), 1u) << "trailing run " << i + 1;
      EXPECT_EQ(all.count(ones & ~(ones >> (i + 1))), 1u) << "leading run " << i + 1;
    }
    for (const std::uint32_t p : patterns) EXPECT_LE(p, ones);
  }
}

TEST(ElementGen, ExponentFieldsStartAtTheBiasAndReachEveryEdge) {
  for (const Layout& f : {kBfloat16, kFloat16}) {
    const std::vector<std::uint32_t> fields = exponent_fields(f.dtype);
    const std::uint32_t all_ones = f.exponent_mask >> f.mantissa_bits;
    ASSERT_FALSE(fields.empty());
    EXPECT_EQ(fields[0], f.bias);
    EXPECT_TRUE(distinct(fields));
    const std::set<std::uint32_t> all(fields.begin(), fields.end());
    for (const std::uint32_t edge : {0u, 1u, 2u, all_ones - 1, all_ones}) EXPECT_EQ(all.count(edge), 1u) << edge;
    for (const std::uint32_t field : fields) EXPECT_LE(field, all_ones);
  }
}

TEST(ElementGen, TestfloatElementsArePositiveDistinctAndStartAtOne) {
  for (const Layout& f : {kBfloat16, kFloat16}) {
    const std::vector<std::uint16_t>& elements = testfloat_elements(f.dtype);
    ASSERT_FALSE(elements.empty());
    EXPECT_EQ(elements[0], f.one);
    EXPECT_TRUE(distinct(elements));
    bool has_inf = false, has_subnormal = false, has_largest_finite = false;
    for (const std::uint16_t e : elements) {
      EXPECT_EQ(e & 0x8000, 0) << std::hex << e;
      has_inf |= e == f.inf;
      has_subnormal |= (e & f.exponent_mask) == 0 && e != 0;
      has_largest_finite |= e == f.inf - 1;
    }
    EXPECT_TRUE(has_inf && has_subnormal && has_largest_finite);
  }
}

TEST(ElementGen, SubnormalNanAndInfTables) {
  for (const Layout& f : {kBfloat16, kFloat16}) {
    const std::vector<std::uint16_t>& subnormals = subnormal_elements(f.dtype);
    ASSERT_FALSE(subnormals.empty());
    EXPECT_EQ(subnormals[0], 0);
    EXPECT_TRUE(distinct(subnormals));
    for (const std::uint16_t e : subnormals) EXPECT_EQ(e & (0x8000 | f.exponent_mask), 0) << std::hex << e;

    const std::vector<std::uint16_t>& nans = nan_elements(f.dtype);
    ASSERT_FALSE(nans.empty());
    EXPECT_EQ(nans[0], f.quiet_nan);
    EXPECT_TRUE(distinct(nans));
    bool signalling = false;
    for (const std::uint16_t e : nans) {
      EXPECT_EQ(e & 0x8000, 0);
      EXPECT_EQ(e & f.exponent_mask, f.exponent_mask) << std::hex << e;
      EXPECT_NE(e & ~f.exponent_mask & 0x7FFF, 0) << std::hex << e;  // a payload: NaN, not Inf
      signalling |= (e & (f.quiet_nan & ~f.exponent_mask)) == 0;
    }
    EXPECT_TRUE(signalling) << "a signalling NaN among them";
    EXPECT_EQ(inf_element(f.dtype), f.inf);
  }
}

}  // namespace
}  // namespace mxconform::properties
