// docs/contract.md step 5, pinned value by value for the oracle's grid search and for impl's
// integer narrow. Every expected code below is read off the format's grid by hand.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "narrow.h"
#include "oracle.h"
#include "test_values.h"

namespace mxconform {
namespace {

oracle::Value exact(double y) {
  oracle::Value v;
  v.negative = std::signbit(y);
  if (std::isnan(y)) v.kind = oracle::Value::Kind::kNan;
  else if (std::isinf(y)) v.kind = oracle::Value::Kind::kInf;
  else v.magnitude = oracle::Rational(std::fabs(y));  // doubles convert exactly
  return v;
}

FormatInfo format_of(ElementKind element) {
  switch (element) {
    case ElementKind::kFp4E2m1: return E2M1::info();
    case ElementKind::kFp8E4m3fn: return E4M3FN::info();
    case ElementKind::kFp8E5m2: return E5M2::info();
  }
  return {};
}

// y must be an fp32 value: the narrow's input is the prescaled fp32.
void expect_code(ElementKind element, double y, std::uint32_t expected,
                 Fp8NanPolicy policy = Fp8NanPolicy::kCanonical) {
  const float as_float = static_cast<float>(y);
  ASSERT_TRUE(std::isnan(y) || static_cast<double>(as_float) == y) << y << " is not an fp32 value";
  const std::uint32_t bits = std::isnan(y) ? (std::signbit(y) ? 0xFFC0'0000u : 0x7FC0'0000u) : test::float_bits(as_float);
  EXPECT_EQ(oracle::narrow(exact(y), element, policy), expected) << "oracle, y = " << y;
  EXPECT_EQ(impl::narrow(bits, format_of(element), policy), expected) << "impl, y = " << y;
}

const double kInf = std::numeric_limits<double>::infinity();
const double kNan = std::numeric_limits<double>::quiet_NaN();

TEST(NarrowE2m1, ExactGridPoints) {
  const double grid[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (std::uint32_t code = 0; code < 8; ++code) {
    expect_code(ElementKind::kFp4E2m1, grid[code], code);
    expect_code(ElementKind::kFp4E2m1, -grid[code], code | 0b1'00'0);
  }
}

TEST(NarrowE2m1, TiesGoToTheEvenCode) {
  expect_code(ElementKind::kFp4E2m1, 0.25, 0b0'00'0);  // 0 | 0.5: code 0
  expect_code(ElementKind::kFp4E2m1, 0.75, 0b0'01'0);  // 0.5 | 1: code 2 (1.0)
  expect_code(ElementKind::kFp4E2m1, 1.25, 0b0'01'0);  // 1 | 1.5: code 2 (1.0)
  expect_code(ElementKind::kFp4E2m1, 1.75, 0b0'10'0);  // 1.5 | 2: code 4 (2.0)
  expect_code(ElementKind::kFp4E2m1, 2.5, 0b0'10'0);   // 2 | 3: code 4 (2.0)
  expect_code(ElementKind::kFp4E2m1, 3.5, 0b0'11'0);   // 3 | 4: code 6 (4.0)
  expect_code(ElementKind::kFp4E2m1, 5.0, 0b0'11'0);   // 4 | 6: code 6 (4.0)
  expect_code(ElementKind::kFp4E2m1, -0.25, 0b1'00'0); // negative zero keeps its sign
  expect_code(ElementKind::kFp4E2m1, -5.0, 0b1'11'0);
}

TEST(NarrowE2m1, JustOffTies) {
  const double below = std::nextafter(0.25f, 0.0f);
  const double above = std::nextafter(0.25f, 1.0f);
  expect_code(ElementKind::kFp4E2m1, below, 0b0'00'0);
  expect_code(ElementKind::kFp4E2m1, above, 0b0'00'1);
  expect_code(ElementKind::kFp4E2m1, std::nextafter(5.0f, 6.0f), 0b0'11'1);
  expect_code(ElementKind::kFp4E2m1, std::nextafter(5.0f, 0.0f), 0b0'11'0);
}

TEST(NarrowE2m1, SaturatesAndMapsNanToSignedZero) {
  expect_code(ElementKind::kFp4E2m1, 6.5, 0b0'11'1);
  expect_code(ElementKind::kFp4E2m1, 7.0, 0b0'11'1);   // a tie 6 | (8) rounds up past 6: saturates
  expect_code(ElementKind::kFp4E2m1, 8.0, 0b0'11'1);
  expect_code(ElementKind::kFp4E2m1, std::ldexp(1.0, 100), 0b0'11'1);
  expect_code(ElementKind::kFp4E2m1, -8.0, 0b1'11'1);
  expect_code(ElementKind::kFp4E2m1, kInf, 0b0'11'1);
  expect_code(ElementKind::kFp4E2m1, -kInf, 0b1'11'1);
  expect_code(ElementKind::kFp4E2m1, kNan, 0b0'00'0);
  expect_code(ElementKind::kFp4E2m1, -kNan, 0b1'00'0);
  expect_code(ElementKind::kFp4E2m1, kNan, 0b0'00'0, Fp8NanPolicy::kZero);  // FP4 ignores the FP8 policy
}

TEST(NarrowE2m1, TinyValuesFlushToSignedZero) {
  expect_code(ElementKind::kFp4E2m1, std::ldexp(1.0, -149), 0b0'00'0);  // smallest fp32 subnormal
  expect_code(ElementKind::kFp4E2m1, -std::ldexp(1.0, -126), 0b1'00'0);
  expect_code(ElementKind::kFp4E2m1, -0.0, 0b1'00'0);
}

TEST(NarrowE4m3fn, NormalBandAndTies) {
  expect_code(ElementKind::kFp8E4m3fn, 1.0, 0b0'0111'000);
  expect_code(ElementKind::kFp8E4m3fn, 1.0625, 0b0'0111'000);  // 1 | 1.125: even mantissa 000
  expect_code(ElementKind::kFp8E4m3fn, 1.1875, 0b0'0111'010);  // 1.125 | 1.25: even mantissa 010
  expect_code(ElementKind::kFp8E4m3fn, 15.5, 0b0'1011'000);    // 15 (odd 0x57) | 16: carry into the exponent
  expect_code(ElementKind::kFp8E4m3fn, std::ldexp(1.0, -6), 0b0'0001'000);  // smallest normal
}

TEST(NarrowE4m3fn, SubnormalBand) {
  expect_code(ElementKind::kFp8E4m3fn, std::ldexp(1.0, -9), 0b0'0000'001);     // smallest subnormal
  expect_code(ElementKind::kFp8E4m3fn, std::ldexp(1.0, -10), 0b0'0000'000);    // 0 | 2^-9: tie to 0
  expect_code(ElementKind::kFp8E4m3fn, std::ldexp(3.0, -10), 0b0'0000'010);    // 2^-9 | 2^-8: tie to 2
  expect_code(ElementKind::kFp8E4m3fn, std::ldexp(5.0, -10), 0b0'0000'010);    // 2*2^-9 | 3*2^-9: tie to 2
  expect_code(ElementKind::kFp8E4m3fn, std::ldexp(15.0, -10), 0b0'0001'000);   // 7*2^-9 | 2^-6: tie to 8
  expect_code(ElementKind::kFp8E4m3fn, std::ldexp(1.0, -11), 0b0'0000'000);
  expect_code(ElementKind::kFp8E4m3fn, -std::ldexp(1.0, -11), 0b1'0000'000);
  expect_code(ElementKind::kFp8E4m3fn, std::nextafter(std::ldexp(1.0f, -10), 1.0f), 0b0'0000'001);
}

TEST(NarrowE4m3fn, SaturationAndNanPolicy) {
  expect_code(ElementKind::kFp8E4m3fn, 448.0, 0x7E);
  expect_code(ElementKind::kFp8E4m3fn, 464.0, 0x7E);  // 448 | (480): past the max saturates
  expect_code(ElementKind::kFp8E4m3fn, 480.0, 0x7E);  // would be the NaN code without saturation
  expect_code(ElementKind::kFp8E4m3fn, -std::ldexp(1.0, 66), 0xFE);
  expect_code(ElementKind::kFp8E4m3fn, kInf, 0x7E);
  expect_code(ElementKind::kFp8E4m3fn, -kInf, 0xFE);
  expect_code(ElementKind::kFp8E4m3fn, kNan, 0x7F);
  expect_code(ElementKind::kFp8E4m3fn, -kNan, 0xFF);
  expect_code(ElementKind::kFp8E4m3fn, kNan, 0x00, Fp8NanPolicy::kZero);
  expect_code(ElementKind::kFp8E4m3fn, -kNan, 0x80, Fp8NanPolicy::kZero);
}

TEST(NarrowE5m2, TiesSubnormalsSaturationAndNan) {
  expect_code(ElementKind::kFp8E5m2, 1.125, 0b0'01111'00);   // 1 | 1.25: even
  expect_code(ElementKind::kFp8E5m2, 1.375, 0b0'01111'10);   // 1.25 | 1.5: even
  expect_code(ElementKind::kFp8E5m2, std::ldexp(1.0, -16), 0b0'00000'01);
  expect_code(ElementKind::kFp8E5m2, std::ldexp(1.0, -17), 0b0'00000'00);
  expect_code(ElementKind::kFp8E5m2, std::ldexp(3.0, -17), 0b0'00000'10);
  expect_code(ElementKind::kFp8E5m2, 57344.0, 0x7B);
  expect_code(ElementKind::kFp8E5m2, 61440.0, 0x7B);   // 57344 | (65536 = Inf): saturates
  expect_code(ElementKind::kFp8E5m2, 65536.0, 0x7B);
  expect_code(ElementKind::kFp8E5m2, kInf, 0x7B);      // Inf saturates; the Inf code 0x7C is never written
  expect_code(ElementKind::kFp8E5m2, -kInf, 0xFB);
  expect_code(ElementKind::kFp8E5m2, kNan, 0x7F);
  expect_code(ElementKind::kFp8E5m2, -kNan, 0xFF);
  expect_code(ElementKind::kFp8E5m2, -kNan, 0x80, Fp8NanPolicy::kZero);
}

}  // namespace
}  // namespace mxconform
