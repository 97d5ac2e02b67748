// docs/contract.md step 1: impl's bit widening against the oracle's exact decoding, exhaustively.
#include <gtest/gtest.h>

#include "oracle.h"
#include "widen.h"

namespace mxconform {
namespace {

void expect_same_value(const oracle::Value& expected, const oracle::Value& actual, std::uint32_t input) {
  ASSERT_EQ(expected.kind, actual.kind) << std::hex << "input 0x" << input;
  ASSERT_EQ(expected.negative, actual.negative) << std::hex << "input 0x" << input;
  ASSERT_EQ(expected.magnitude, actual.magnitude) << std::hex << "input 0x" << input;
}

TEST(Widen, Bfloat16ExhaustiveAgainstExactValues) {
  for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const oracle::Value expected = oracle::decode(Bfloat16::info(), bits);
    const oracle::Value actual = oracle::decode(Float32::info(), impl::widen_bf16(static_cast<std::uint16_t>(bits)));
    expect_same_value(expected, actual, bits);
  }
}

TEST(Widen, Float16ExhaustiveAgainstExactValues) {
  for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const oracle::Value expected = oracle::decode(Float16::info(), bits);
    const oracle::Value actual = oracle::decode(Float32::info(), impl::widen_f16(static_cast<std::uint16_t>(bits)));
    expect_same_value(expected, actual, bits);
  }
}

TEST(Widen, Float16SubnormalsBecomeFp32Normals) {
  EXPECT_EQ(impl::widen_f16(0x0001), 0x3380'0000u);  // 2^-24: fp32 exponent field 103
  EXPECT_EQ(impl::widen_f16(0x0200), 0x3800'0000u);  // 2^-15
  EXPECT_EQ(impl::widen_f16(0x03FF), 0x387F'C000u);  // 1023 * 2^-24
  EXPECT_EQ(impl::widen_f16(0x8001), 0xB380'0000u);
  for (std::uint32_t m = 1; m < 0x400; ++m) {
    const std::uint32_t wide = impl::widen_f16(static_cast<std::uint16_t>(m));
    EXPECT_GE((wide >> 23) & 0xFF, 103u);
    EXPECT_LE((wide >> 23) & 0xFF, 112u);
    EXPECT_EQ(oracle::fp32_exponent_field(oracle::decode(Float16::info(), m)), static_cast<int>((wide >> 23) & 0xFF));
  }
}

TEST(Widen, NanKeepsItsSign) {
  EXPECT_EQ(impl::widen_bf16(0xFFC1) >> 31, 1u);
  EXPECT_EQ(impl::widen_f16(0xFE01) >> 31, 1u);
  EXPECT_EQ(impl::widen_f16(0x7C00), 0x7F80'0000u);  // Inf
}

}  // namespace
}  // namespace mxconform
