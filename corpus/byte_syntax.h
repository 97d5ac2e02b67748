#pragma once
// How a corpus writes expected output bytes: whitespace-separated tokens, each
//
//   7F  or  0622447F   one or more bytes as pairs of hex digits
//   78*1024            one byte repeated (count >= 1)
//   ..  or  ..*56      bytes the implementation must never write (physical scale rows no slot names)
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "corpus_case.h"

namespace mxconform::corpus {

// The bytes `text` spells. Throws Error naming the bad token, or the count once it passes
// `limit` (so a hostile count never allocates more than limit + 1 bytes).
std::vector<ExpectedByte> parse_expected_bytes(std::string_view text, std::size_t limit);

// A spelling parse_expected_bytes reads back: runs of four or more equal bytes become "HH*N",
// tokens are separated by spaces, with a newline after every `tokens_per_line` tokens.
std::string format_expected_bytes(const std::vector<ExpectedByte>& bytes, std::size_t tokens_per_line = 16);

// "0x7F", or ".." for a byte never written.
std::string to_string(const ExpectedByte& byte);

}  // namespace mxconform::corpus
