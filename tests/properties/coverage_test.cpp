// coverage.cpp: a hand-made block hits the classes it was built for, and only applicable ones count.
#include "coverage.h"

#include <gtest/gtest.h>

#include <cmath>

#include "input_value.h"

namespace mxconform::properties {
namespace {

// bfloat16 to e4m3fn, EMAX mode: a maximum in [256, 512) gives field 135, E8M0 127, prescale x 1.
QuantizeCase e4m3_block(std::initializer_list<double> values) {
  QuantizeCase c;
  c.config.partitions = kBlockRows;
  c.config.free = kBlockCols;
  constexpr std::uint16_t kQuietNan = 0x7FC0;
  for (double v : values) c.input.push_back(std::isnan(v) ? kQuietNan : *bits_of(InputDtype::kBfloat16, v));
  c.input.resize(kBlockSize, 0);
  return c;
}

TEST(Coverage, HandPlacedElementsHitTheirClasses) {
  Coverage coverage;
  coverage.add(e4m3_block(
      {448, 464, 480, std::ldexp(1.0, -10), std::ldexp(3.0, -10), 1.0625, -std::ldexp(1.0, -20), 1.0703125}));
  for (CoverageClass id :
       {CoverageClass::kExactMax, CoverageClass::kAboveMaxToMax, CoverageClass::kRoundsUpToSaturate,
        CoverageClass::kTieToZero, CoverageClass::kSubnormalTie, CoverageClass::kNormalTie, CoverageClass::kFlushed,
        CoverageClass::kNegativeToNegativeZero, CoverageClass::kAboveTie, CoverageClass::kMixedSignBlock,
        CoverageClass::kSingleBlock, CoverageClass::kBfloat16Input, CoverageClass::kPNotMultipleOf32}) {
    EXPECT_EQ(coverage.cases_hitting(id), 1u) << name(id);
  }
  for (CoverageClass id : {CoverageClass::kNanBlock, CoverageClass::kZeroFloorBlock, CoverageClass::kLaneStride0}) {
    EXPECT_EQ(coverage.cases_hitting(id), 0u) << name(id) << " (lane strides do not apply to FP8)";
  }
}

TEST(Coverage, BlockClassesFollowTheMaximumField) {
  Coverage coverage;
  coverage.add(e4m3_block({std::ldexp(1.0, 8 - 127)}));  // field 8 == bias: ZERO-FLOOR
  coverage.add(e4m3_block({std::ldexp(1.0, 2 - 127)}));  // field 2 < bias: CLAMP-LOW
  coverage.add(e4m3_block({}));                          // all zero: CLAMP-LOW too
  coverage.add(e4m3_block({NAN}));
  EXPECT_EQ(coverage.cases_hitting(CoverageClass::kZeroFloorBlock), 1u);
  EXPECT_EQ(coverage.cases_hitting(CoverageClass::kClampLowBlock), 2u);
  EXPECT_EQ(coverage.cases_hitting(CoverageClass::kZeroBlock), 1u);
  EXPECT_EQ(coverage.cases_hitting(CoverageClass::kNanBlock), 1u);
  EXPECT_EQ(coverage.missed({CoverageClass::kNanBlock, CoverageClass::kInfBlock}),
            std::vector<CoverageClass>{CoverageClass::kInfBlock});
}

}  // namespace
}  // namespace mxconform::properties
