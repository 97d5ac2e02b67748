// input_value.cpp against the oracle's decoding, exhaustively: every 16-bit pattern of both input
// dtypes.
#include "input_value.h"

#include <gtest/gtest.h>

#include <cmath>

#include "oracle.h"

namespace mxconform::properties {
namespace {

class InputValueTest : public ::testing::TestWithParam<InputDtype> {};

TEST_P(InputValueTest, EveryPatternDecodesLikeTheOracleAndEncodesBack) {
  const InputDtype dtype = GetParam();
  for (std::uint32_t pattern = 0; pattern <= 0xFFFF; ++pattern) {
    const auto bits = static_cast<std::uint16_t>(pattern);
    const oracle::Value expected = oracle::decode(input_format(dtype), bits);
    const double actual = value_of(dtype, bits);
    ASSERT_EQ(is_nan(dtype, bits), expected.is_nan()) << std::hex << pattern;
    ASSERT_EQ(is_inf(dtype, bits), expected.is_inf()) << std::hex << pattern;
    ASSERT_EQ(is_negative(dtype, bits), expected.negative) << std::hex << pattern;
    ASSERT_EQ(fp32_exponent_field(dtype, bits), oracle::fp32_exponent_field(expected)) << std::hex << pattern;
    if (expected.is_nan()) {
      EXPECT_FALSE(bits_of(dtype, actual).has_value());
      continue;
    }
    if (expected.is_finite()) {
      ASSERT_EQ(oracle::Rational(std::fabs(actual)), expected.magnitude) << std::hex << pattern;
    }
    ASSERT_EQ(bits_of(dtype, actual), bits) << std::hex << pattern;
  }
}

TEST_P(InputValueTest, NudgeStepsOneUnitAndStopsAtZeroAndInfinity) {
  const InputDtype dtype = GetParam();
  const std::uint16_t one = *bits_of(dtype, 1.0);
  EXPECT_EQ(nudge(dtype, one, +1), one + 1);
  EXPECT_EQ(nudge(dtype, one | sign_mask(dtype), -1), (one - 1) | sign_mask(dtype));  // towards zero
  EXPECT_EQ(nudge(dtype, 1, -1), 0);
  EXPECT_FALSE(nudge(dtype, 0, -1).has_value());
  const std::uint16_t infinity = make_bits(dtype, false, exponent_field_max(dtype), 0);
  EXPECT_FALSE(nudge(dtype, infinity - 1, +1).has_value());
  EXPECT_FALSE(bits_of(dtype, 1.0 + std::ldexp(1.0, -mantissa_bits(dtype) - 1)).has_value());  // needs rounding
}

INSTANTIATE_TEST_SUITE_P(Dtypes, InputValueTest, ::testing::Values(InputDtype::kBfloat16, InputDtype::kFloat16),
                         [](const auto& info) { return std::string(name(info.param)); });

}  // namespace
}  // namespace mxconform::properties
