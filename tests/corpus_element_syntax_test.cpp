// corpus/element_syntax.h: every spelling of an input element, and the errors that name the text.
#include <string>

#include <gtest/gtest.h>

#include "element_syntax.h"
#include "mxconform/error.h"

namespace mxconform::corpus {
namespace {

std::string error_of(const std::string& text, InputDtype dtype) {
  try {
    parse_element(text, dtype);
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

TEST(ElementSyntax, BitPatterns) {
  EXPECT_EQ(parse_element("0x3FC0", InputDtype::kBfloat16), 0x3FC0);
  EXPECT_EQ(parse_element("0x1", InputDtype::kBfloat16), 0x0001);
  EXPECT_EQ(parse_element("0xffff", InputDtype::kFloat16), 0xFFFF);
  EXPECT_EQ(parse_element("0X7f81", InputDtype::kBfloat16), 0x7F81);  // a NaN payload, kept
}

TEST(ElementSyntax, DecimalValues) {
  EXPECT_EQ(parse_element("1.5", InputDtype::kBfloat16), 0x3FC0);
  EXPECT_EQ(parse_element("-0.25", InputDtype::kBfloat16), 0xBE80);
  EXPECT_EQ(parse_element("4", InputDtype::kBfloat16), 0x4080);
  EXPECT_EQ(parse_element("+448", InputDtype::kBfloat16), 0x43E0);
  EXPECT_EQ(parse_element("65504", InputDtype::kFloat16), 0x7BFF);
  EXPECT_EQ(parse_element("0.0009765625", InputDtype::kFloat16), 0x1400);  // 2^-10
  EXPECT_EQ(parse_element("25e-2", InputDtype::kBfloat16), 0x3E80);
  EXPECT_EQ(parse_element("0", InputDtype::kBfloat16), 0x0000);
  EXPECT_EQ(parse_element("-0", InputDtype::kBfloat16), 0x8000);
  EXPECT_EQ(parse_element("-0.0", InputDtype::kFloat16), 0x8000);
}

TEST(ElementSyntax, HexadecimalValuesReachSubnormals) {
  EXPECT_EQ(parse_element("-0x1p-133", InputDtype::kBfloat16), 0x8001);  // the smallest bfloat16 denormal
  EXPECT_EQ(parse_element("0x1p-24", InputDtype::kFloat16), 0x0001);     // the smallest float16 subnormal
  EXPECT_EQ(parse_element("0x1.8p3", InputDtype::kBfloat16), 0x4140);    // 12
  EXPECT_EQ(parse_element("0x1.fep-7", InputDtype::kBfloat16), 0x3C7F);
  EXPECT_EQ(parse_element("0x3p-10", InputDtype::kBfloat16), 0x3B40);
}

TEST(ElementSyntax, Specials) {
  EXPECT_EQ(parse_element("nan", InputDtype::kBfloat16), 0x7FC0);
  EXPECT_EQ(parse_element("-nan", InputDtype::kBfloat16), 0xFFC0);
  EXPECT_EQ(parse_element("NaN", InputDtype::kFloat16), 0x7E00);
  EXPECT_EQ(parse_element("inf", InputDtype::kBfloat16), 0x7F80);
  EXPECT_EQ(parse_element("+inf", InputDtype::kFloat16), 0x7C00);
  EXPECT_EQ(parse_element("-inf", InputDtype::kFloat16), 0xFC00);
}

TEST(ElementSyntax, InexactValuesNameTheNearestBits) {
  EXPECT_EQ(error_of("1.1", InputDtype::kBfloat16),
            "'1.1' is not exact in bfloat16; the nearest bfloat16 is 0x3F8D (1.1015625)");
  EXPECT_EQ(error_of("0x1p-134", InputDtype::kBfloat16),
            "'0x1p-134' is not exact in bfloat16; the nearest bfloat16 is 0x0000 (0)");
  EXPECT_EQ(error_of("1e-3", InputDtype::kFloat16),
            "'1e-3' is not exact in float16; the nearest float16 is 0x1419 (1.0244140625*2^-10)");
}

TEST(ElementSyntax, OutOfRangeAndMalformed) {
  EXPECT_EQ(error_of("70000", InputDtype::kFloat16), "'70000' is beyond the largest finite float16, 65504");
  EXPECT_EQ(error_of("0x1FFFF", InputDtype::kBfloat16),
            "'0x1FFFF' is not a 16-bit pattern: write at most 4 hex digits after 0x");
  for (const char* bad : {"", "abc", "1.5.5", "-0x3F80", "0x", "1e", "0x1.8", "1,5", " 1", "0x1p", "--1", ".5", "infinity"}) {
    EXPECT_NE(error_of(bad, InputDtype::kBfloat16).find("is not an element"), std::string::npos) << "'" << bad << "'";
  }
  EXPECT_NE(error_of(std::string(kMaxElementTextLength + 1, '1'), InputDtype::kBfloat16).find("too long"), std::string::npos);
  EXPECT_NE(error_of("1e401", InputDtype::kBfloat16).find("is not an element"), std::string::npos);  // exponent cap
}

TEST(ElementSyntax, FormatBitPattern) {
  EXPECT_EQ(format_bit_pattern(0x3FC0), "0x3FC0");
  EXPECT_EQ(format_bit_pattern(0x0001), "0x0001");
}

}  // namespace
}  // namespace mxconform::corpus
