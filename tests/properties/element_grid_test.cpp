// element_grid.cpp: the grids against the oracle's decoding, and hand-placed positions.
#include "element_grid.h"

#include <gtest/gtest.h>

#include <cmath>

#include "mxconform/formats.h"
#include "oracle.h"

namespace mxconform::properties {
namespace {

TEST(ElementGrid, EveryCodeHasTheOraclesValue) {
  for (const OutputDtypeInfo& dtype : output_dtypes()) {
    const ElementGrid& grid = element_grid(dtype.element);
    const FormatInfo format = element_format(dtype.id);
    ASSERT_EQ(grid.values.size(), format.max_code + 1) << dtype.name;
    for (std::uint32_t code = 0; code <= format.max_code; ++code) {
      EXPECT_EQ(oracle::Rational(grid.values[code]), oracle::decode(format, code).magnitude) << dtype.name << code;
    }
    EXPECT_EQ(grid.max, grid.values.back());
  }
}

TEST(ElementGrid, PositionsOfHandPlacedMagnitudes) {
  const ElementGrid& e2m1 = element_grid(ElementKind::kFp4E2m1);
  EXPECT_EQ(grid_position(e2m1, 0.0), GridPosition::kZero);
  EXPECT_EQ(grid_position(e2m1, 0.125), GridPosition::kFlushed);
  EXPECT_EQ(grid_position(e2m1, 0.25), GridPosition::kTieToZero);
  EXPECT_EQ(grid_position(e2m1, 0.75), GridPosition::kSubnormalTie);  // between 0.5 and the smallest normal
  EXPECT_EQ(grid_position(e2m1, 2.5), GridPosition::kNormalTie);
  EXPECT_EQ(grid_position(e2m1, 3.0), GridPosition::kOnGrid);
  EXPECT_EQ(grid_position(e2m1, 3.25), GridPosition::kBetween);
  EXPECT_EQ(grid_position(e2m1, 6.0), GridPosition::kMax);
  EXPECT_EQ(grid_position(e2m1, 6.5), GridPosition::kAboveMaxToMax);
  EXPECT_EQ(grid_position(e2m1, 7.0), GridPosition::kRoundsUpToSaturate);  // ties to the even code 8: past max
  const ElementGrid& e4m3 = element_grid(ElementKind::kFp8E4m3fn);
  EXPECT_EQ(grid_position(e4m3, 464.0), GridPosition::kAboveMaxToMax);  // ties to 0x7E, even
  EXPECT_EQ(grid_position(e4m3, 465.0), GridPosition::kRoundsUpToSaturate);
  EXPECT_EQ(grid_position(e4m3, std::ldexp(3.0, -10)), GridPosition::kSubnormalTie);
  const ElementGrid& e5m2 = element_grid(ElementKind::kFp8E5m2);
  EXPECT_EQ(grid_position(e5m2, 61440.0), GridPosition::kRoundsUpToSaturate);  // ties to the odd 0x7B's neighbour
  EXPECT_EQ(grid_position(e5m2, INFINITY), GridPosition::kInfinite);
  const Bracket b = bracket(e5m2, 1.1);
  EXPECT_EQ(b.below, 1.0);
  EXPECT_EQ(b.above, 1.25);
}

}  // namespace
}  // namespace mxconform::properties
