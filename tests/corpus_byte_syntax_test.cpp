// corpus/byte_syntax.h: expected bytes with runs and never-written markers.
#include <string>

#include <gtest/gtest.h>

#include "byte_syntax.h"
#include "mxconform/error.h"

namespace mxconform::corpus {
namespace {

using Bytes = std::vector<ExpectedByte>;

std::string error_of(const std::string& text, std::size_t limit) {
  try {
    parse_expected_bytes(text, limit);
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

TEST(ByteSyntax, PairsRunsAndNeverWritten) {
  EXPECT_EQ(parse_expected_bytes("7F", 16), (Bytes{0x7F}));
  EXPECT_EQ(parse_expected_bytes("06 22\n  447f", 16), (Bytes{0x06, 0x22, 0x44, 0x7F}));
  EXPECT_EQ(parse_expected_bytes("78*3 00", 16), (Bytes{0x78, 0x78, 0x78, 0x00}));
  EXPECT_EQ(parse_expected_bytes("77 ..*2 .. 7B", 16), (Bytes{0x77, std::nullopt, std::nullopt, std::nullopt, 0x7B}));
  EXPECT_EQ(parse_expected_bytes("", 16), Bytes{});
}

TEST(ByteSyntax, ErrorsNameTheToken) {
  EXPECT_EQ(error_of("7G", 16), "'7G' is not hex bytes");
  EXPECT_EQ(error_of("123", 16), "'123': an odd number of hex digits");
  EXPECT_EQ(error_of("78*0", 16), "repeat count 0 in '78*0'");
  EXPECT_EQ(error_of("78*x", 16), "bad repeat count in '78*x'");
  EXPECT_EQ(error_of("7*4", 16), "'7*4': a repeat is one byte (two hex digits or ..) then *count");
  EXPECT_EQ(error_of("...", 16), "'...': an odd number of hex digits");
}

TEST(ByteSyntax, NeverAllocatesPastTheLimit) {
  EXPECT_EQ(error_of("00*999999999", 32), "more than 32 bytes, but the output has 32");
  EXPECT_EQ(error_of("00*32 01", 32), "more than 32 bytes, but the output has 32");
  EXPECT_EQ(parse_expected_bytes("00*32", 32).size(), 32u);
}

TEST(ByteSyntax, FormatReadsBack) {
  const Bytes bytes = {0x06, 0x22, std::nullopt, std::nullopt, std::nullopt, std::nullopt, 0x78, 0x78, 0x78,
                       0x78, 0x78, 0x01};
  const std::string text = format_expected_bytes(bytes, 16);
  EXPECT_EQ(text, "06 22 ..*4 78*5 01");
  EXPECT_EQ(parse_expected_bytes(text, bytes.size()), bytes);
  Bytes many;
  for (int i = 0; i < 40; ++i) many.push_back(static_cast<std::uint8_t>(i));
  const std::string lines = format_expected_bytes(many, 16);
  EXPECT_EQ(std::count(lines.begin(), lines.end(), '\n'), 2);
  EXPECT_EQ(parse_expected_bytes(lines, many.size()), many);
  EXPECT_EQ(to_string(ExpectedByte(0x7F)), "0x7F");
  EXPECT_EQ(to_string(ExpectedByte()), "..");
}

}  // namespace
}  // namespace mxconform::corpus
