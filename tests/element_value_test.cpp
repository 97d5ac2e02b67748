// src/element_value.cpp: input_value against the oracle's own decoding, for every bfloat16 and
// float16 bit pattern.
#include "mxconform/element_value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "mxconform/formats.h"
#include "oracle.h"

namespace mxconform {
namespace {

void expect_every_pattern_decodes_as_the_oracle_does(InputDtype dtype, const FormatInfo& format) {
  for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const double actual = input_value(dtype, static_cast<std::uint16_t>(bits));
    const oracle::Value expected = oracle::decode(format, bits);
    ASSERT_EQ(std::signbit(actual), (bits & 0x8000) != 0) << std::hex << bits;
    if (expected.is_nan()) {
      ASSERT_TRUE(std::isnan(actual)) << std::hex << bits;
    } else if (!expected.is_finite()) {
      ASSERT_TRUE(std::isinf(actual)) << std::hex << bits;
    } else {
      ASSERT_EQ(oracle::Rational(std::fabs(actual)), expected.magnitude) << std::hex << bits;
    }
  }
}

TEST(ElementValue, EveryBfloat16PatternIsTheOraclesValue) {
  expect_every_pattern_decodes_as_the_oracle_does(InputDtype::kBfloat16, Bfloat16::info());
}

TEST(ElementValue, EveryFloat16PatternIsTheOraclesValue) {
  expect_every_pattern_decodes_as_the_oracle_does(InputDtype::kFloat16, Float16::info());
}

}  // namespace
}  // namespace mxconform
