// safe_text: what a backend or a corpus file supplies is shown escaped and capped.
#include "mxconform/safe_text.h"

#include <string>

#include <gtest/gtest.h>

namespace mxconform {
namespace {

TEST(SafeText, PrintableAsciiAndUtf8PassUnchanged) {
  EXPECT_EQ(safe_text("plain text, 1.0625 -> 0x38"), "plain text, 1.0625 -> 0x38");
  EXPECT_EQ(safe_text("\xC3\xA9t\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x98\x80"), "\xC3\xA9t\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x98\x80");
}

TEST(SafeText, ControlBytesAndEscapeSequencesAreShownAsHex) {
  EXPECT_EQ(safe_text("\x1B]0;title\x07"), "\\x1B]0;title\\x07");
  EXPECT_EQ(safe_text("a\nb\tc\rd"), "a\\x0Ab\\x09c\\x0Dd");
  EXPECT_EQ(safe_multiline_text("a\nb\tc\rd"), "a\nb\tc\\x0Dd");
  EXPECT_EQ(safe_text(std::string("nul\0byte", 8)), "nul\\x00byte");
  EXPECT_EQ(safe_text("\x7F"), "\\x7F");
  EXPECT_EQ(safe_text("\xC2\x9B" "31m"), "\\xC2\\x9B31m");  // C1 CSI
}

TEST(SafeText, MalformedUtf8IsShownAsHex) {
  EXPECT_EQ(safe_text("\xFF\xFE"), "\\xFF\\xFE");
  EXPECT_EQ(safe_text("\xC0\xAF"), "\\xC0\\xAF");          // overlong '/'
  EXPECT_EQ(safe_text("\xED\xA0\x80"), "\\xED\\xA0\\x80");  // surrogate
  EXPECT_EQ(safe_text("\xE2\x86"), "\\xE2\\x86");          // cut short
  EXPECT_EQ(safe_text("\xF4\x90\x80\x80"), "\\xF4\\x90\\x80\\x80");  // above U+10FFFF
}

// Bidi overrides and isolates, zero-width characters, the line separator and the BOM reorder or
// hide text without showing themselves: each is shown as its UTF-8 bytes in hex.
TEST(SafeText, InvisibleFormatCharactersAreShownAsHex) {
  EXPECT_EQ(safe_text("abc\xE2\x80\xAE" "fed"), "abc\\xE2\\x80\\xAEfed");        // U+202E RIGHT-TO-LEFT OVERRIDE
  EXPECT_EQ(safe_text("\xE2\x81\xA6x\xE2\x81\xA9"), "\\xE2\\x81\\xA6x\\xE2\\x81\\xA9");  // U+2066, U+2069 isolates
  EXPECT_EQ(safe_text("a\xE2\x80\x8B" "b"), "a\\xE2\\x80\\x8Bb");              // U+200B ZERO WIDTH SPACE
  EXPECT_EQ(safe_text("a\xE2\x80\xA8" "b"), "a\\xE2\\x80\\xA8" "b");          // U+2028 LINE SEPARATOR
  EXPECT_EQ(safe_text("\xEF\xBB\xBF" "x"), "\\xEF\\xBB\\xBFx");                // U+FEFF BOM
  EXPECT_EQ(safe_text("\xD8\x9C"), "\\xD8\\x9C");                                // U+061C ARABIC LETTER MARK
  EXPECT_EQ(safe_text("\xF3\xA0\x80\x81"), "\\xF3\\xA0\\x80\\x81");          // U+E0001 LANGUAGE TAG
  // Their neighbours stay as they are.
  EXPECT_EQ(safe_text("\xE2\x80\x94 \xE2\x80\xB0"), "\xE2\x80\x94 \xE2\x80\xB0");  // U+2014, U+2030
}

TEST(ShellWord, PlainWordsStayAndEverythingElseIsSingleQuoted) {
  EXPECT_EQ(shell_word("./build/lib-x_1.so"), "./build/lib-x_1.so");
  EXPECT_EQ(shell_word("cmd:python3 x.py"), "'cmd:python3 x.py'");
  EXPECT_EQ(shell_word("./a$(touch${IFS}PWNED).so"), "'./a$(touch${IFS}PWNED).so'");
  EXPECT_EQ(shell_word("a`id`;b|c&d*"), "'a`id`;b|c&d*'");
  EXPECT_EQ(shell_word("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_word(""), "''");
}

TEST(SafeText, BackslashesAreDoubledSoEscapesAreUnambiguous) { EXPECT_EQ(safe_text("\\x41"), "\\\\x41"); }

TEST(SafeText, LongTextIsCutAndTheCutIsSaid) {
  const std::string long_text(10000, 'a');
  const std::string shown = safe_text(long_text, 100);
  EXPECT_EQ(shown, std::string(100, 'a') + "... (9900 more bytes)");
}

}  // namespace
}  // namespace mxconform
