#include "mxconform/safe_text.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace mxconform {
namespace {

// Characters that change how the text around them reads without showing themselves: the bidi
// embeddings, overrides, isolates and marks (a "Trojan Source" name reads as something else), the
// zero-width characters, the line and paragraph separators, the byte-order mark, the interlinear
// annotation marks and the tag characters. They are escaped like control characters.
bool is_invisible_control(std::uint32_t code) {
  return code == 0x061C || (code >= 0x200B && code <= 0x200F) || (code >= 0x2028 && code <= 0x202E) ||
         (code >= 0x2060 && code <= 0x206F) || code == 0xFEFF || (code >= 0xFFF9 && code <= 0xFFFB) ||
         (code >= 0xE0000 && code <= 0xE007F);
}

// Length of the well-formed UTF-8 sequence of 2 to 4 bytes starting at `at`, or 0 (RFC 3629:
// no overlong forms, no surrogates, nothing above U+10FFFF), or 0 for an invisible control.
std::size_t utf8_sequence(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(text[i]); };
  const std::uint8_t lead = byte(at);
  std::size_t length = 0;
  std::uint8_t low = 0x80, high = 0xBF;  // allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  if (byte(at + 1) < low || byte(at + 1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(at + i) < 0x80 || byte(at + i) > 0xBF) return 0;
  }
  // C1 control characters (U+0080..U+009F) act on some terminals: escape them too.
  if (lead == 0xC2 && byte(at + 1) <= 0x9F) return 0;
  std::uint32_t code = lead & (0x7Fu >> length);
  for (std::size_t i = 1; i < length; ++i) code = code << 6 | (byte(at + i) & 0x3Fu);
  return is_invisible_control(code) ? 0 : length;
}

std::string escape(std::string_view bytes, std::size_t max_bytes, bool keep_lines) {
  const std::string_view kept = bytes.substr(0, max_bytes);
  std::string out;
  out.reserve(kept.size());
  for (std::size_t i = 0; i < kept.size();) {
    const auto byte = static_cast<std::uint8_t>(kept[i]);
    if (byte == '\\') {
      out += "\\\\";
      ++i;
    } else if ((byte >= 0x20 && byte < 0x7F) || (keep_lines && (byte == '\n' || byte == '\t'))) {
      out += static_cast<char>(byte);
      ++i;
    } else if (const std::size_t length = byte >= 0x80 ? utf8_sequence(kept, i) : 0; length > 0) {
      out.append(kept.substr(i, length));
      i += length;
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02X", byte);
      out += hex;
      ++i;
    }
  }
  if (bytes.size() > kept.size()) out += "... (" + std::to_string(bytes.size() - kept.size()) + " more bytes)";
  return out;
}

}  // namespace

std::string safe_text(std::string_view bytes, std::size_t max_bytes) { return escape(bytes, max_bytes, false); }

std::size_t first_unsafe_byte(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<std::uint8_t>(text[i]);
    if ((byte >= 0x20 && byte < 0x7F) || byte == '\n' || byte == '\t' || byte == '\r') {
      ++i;
    } else if (const std::size_t length = byte >= 0x80 ? utf8_sequence(text, i) : 0; length > 0) {
      i += length;
    } else {
      return i;
    }
  }
  return std::string_view::npos;
}

std::string safe_multiline_text(std::string_view bytes, std::size_t max_bytes) { return escape(bytes, max_bytes, true); }

std::string shell_word(std::string_view word) {
  const auto plain = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_./:=,+@%-").find(c) != std::string_view::npos;
  };
  if (!word.empty() && std::all_of(word.begin(), word.end(), plain)) return std::string(word);
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace mxconform
