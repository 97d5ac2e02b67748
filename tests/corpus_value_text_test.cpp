// corpus/value_text.h: exact values and codes as text.
#include <gtest/gtest.h>

#include "mxconform/formats.h"
#include "oracle.h"
#include "value_text.h"

namespace mxconform::corpus {
namespace {

oracle::Value bf16(std::uint32_t bits) { return oracle::decode(Bfloat16::info(), bits); }

TEST(ValueText, PlainDecimalsWhenShort) {
  EXPECT_EQ(format_value(bf16(0x3FC0)), "1.5");
  EXPECT_EQ(format_value(bf16(0xBE80)), "-0.25");
  EXPECT_EQ(format_value(bf16(0x8000)), "-0");
  EXPECT_EQ(format_value(bf16(0x0000)), "0");
  EXPECT_EQ(format_value(bf16(0x43E0)), "448");
  EXPECT_EQ(format_value(bf16(0x3A80)), "0.0009765625");  // 2^-10: ten digits after the point
}

TEST(ValueText, NormalisedWhenLong) {
  EXPECT_EQ(format_value(bf16(0x0001)), "2^-133");
  EXPECT_EQ(format_value(bf16(0x8003)), "-1.5*2^-132");
  EXPECT_EQ(format_value(bf16(0x7F7F)), "1.9921875*2^127");
  EXPECT_EQ(format_value(bf16(0x3400)), "2^-23");
}

TEST(ValueText, Specials) {
  EXPECT_EQ(format_value(bf16(0x7FC0)), "nan");
  EXPECT_EQ(format_value(bf16(0xFFC0)), "-nan");
  EXPECT_EQ(format_value(bf16(0xFF80)), "-inf");
}

TEST(ValueText, Hex) {
  EXPECT_EQ(format_hex(0x7F, 2), "0x7F");
  EXPECT_EQ(format_hex(0x7, 1), "0x7");
  EXPECT_EQ(format_hex(0x3F800000, 8), "0x3F800000");
}

}  // namespace
}  // namespace mxconform::corpus
