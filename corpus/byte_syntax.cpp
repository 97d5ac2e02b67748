#include "byte_syntax.h"

#include "mxconform/error.h"
#include "value_text.h"

namespace mxconform::corpus {
namespace {

constexpr std::string_view kUnwrittenToken = "..";
constexpr std::size_t kMinRunLength = 4;  // shorter runs read better spelled out
constexpr std::size_t kMaxShownTokenLength = 24;

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string shown(std::string_view token) {
  if (token.size() <= kMaxShownTokenLength) return "'" + std::string(token) + "'";
  return "'" + std::string(token.substr(0, kMaxShownTokenLength)) + "...'";
}

// "7F": the token spelling of one byte.
std::string hex_byte(std::uint8_t byte) { return format_hex(byte, 2).substr(2); }

std::string token_text(const ExpectedByte& byte) { return byte ? hex_byte(*byte) : std::string(kUnwrittenToken); }

// Appends `count` copies of `byte`, refusing to pass `limit`.
void append(std::vector<ExpectedByte>& out, const ExpectedByte& byte, std::size_t count, std::size_t limit) {
  if (count > limit - out.size()) {
    throw Error("more than " + std::to_string(limit) + " bytes, but the output has " + std::to_string(limit));
  }
  out.insert(out.end(), count, byte);
}

// The count after '*': decimal, >= 1. Throws on anything else.
std::size_t run_count(std::string_view token, std::string_view count_text) {
  std::size_t count = 0;
  if (count_text.empty() || count_text.size() > 9) throw Error("bad repeat count in " + shown(token));
  for (char c : count_text) {
    if (c < '0' || c > '9') throw Error("bad repeat count in " + shown(token));
    count = count * 10 + static_cast<std::size_t>(c - '0');
  }
  if (count == 0) throw Error("repeat count 0 in " + shown(token));
  return count;
}

void parse_token(std::string_view token, std::size_t limit, std::vector<ExpectedByte>& out) {
  const std::size_t star = token.find('*');
  const std::string_view body = token.substr(0, star);
  if (star != std::string_view::npos) {
    const std::size_t count = run_count(token, token.substr(star + 1));
    if (body == kUnwrittenToken) return append(out, std::nullopt, count, limit);
    if (body.size() != 2 || hex_value(body[0]) < 0 || hex_value(body[1]) < 0) {
      throw Error(shown(token) + ": a repeat is one byte (two hex digits or ..) then *count");
    }
    return append(out, static_cast<std::uint8_t>(hex_value(body[0]) * 16 + hex_value(body[1])), count, limit);
  }
  if (body == kUnwrittenToken) return append(out, std::nullopt, 1, limit);
  if (body.size() % 2 != 0) throw Error(shown(token) + ": an odd number of hex digits");
  for (std::size_t i = 0; i < body.size(); i += 2) {
    const int high = hex_value(body[i]);
    const int low = hex_value(body[i + 1]);
    if (high < 0 || low < 0) throw Error(shown(token) + " is not hex bytes");
    append(out, static_cast<std::uint8_t>(high * 16 + low), 1, limit);
  }
}

}  // namespace

std::string to_string(const ExpectedByte& byte) { return byte ? format_hex(*byte, 2) : std::string(kUnwrittenToken); }

std::vector<ExpectedByte> parse_expected_bytes(std::string_view text, std::size_t limit) {
  std::vector<ExpectedByte> out;
  std::size_t at = 0;
  while (at < text.size()) {
    if (is_space(text[at])) {
      ++at;
      continue;
    }
    const std::size_t start = at;
    while (at < text.size() && !is_space(text[at])) ++at;
    parse_token(text.substr(start, at - start), limit, out);
  }
  return out;
}

std::string format_expected_bytes(const std::vector<ExpectedByte>& bytes, std::size_t tokens_per_line) {
  std::string text;
  std::size_t on_line = 0;
  for (std::size_t i = 0; i < bytes.size();) {
    std::size_t run = 1;
    while (i + run < bytes.size() && bytes[i + run] == bytes[i]) ++run;
    if (!text.empty()) text += on_line == tokens_per_line ? '\n' : ' ';
    if (on_line == tokens_per_line) on_line = 0;
    if (run >= kMinRunLength) {
      text += token_text(bytes[i]) + "*" + std::to_string(run);
      i += run;
    } else {
      text += token_text(bytes[i]);
      ++i;
    }
    ++on_line;
  }
  return text;
}

}  // namespace mxconform::corpus
