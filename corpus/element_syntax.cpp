#include "element_syntax.h"

#include <cctype>

#include "mxconform/error.h"
#include "value_text.h"

namespace mxconform::corpus {
namespace {

using boost::multiprecision::cpp_int;
using oracle::Rational;
using oracle::Value;

constexpr std::size_t kMaxPatternHexDigits = 4;  // 16-bit inputs
// Exponents beyond these cannot name a bfloat16 or float16 value, and larger ones would make
// the exact rational needlessly big.
constexpr long kMaxDecimalExponent = 400;
constexpr long kMaxBinaryExponent = 1200;

Rational power(int base, long exponent) {
  cpp_int p = 1;
  for (long i = 0; i < (exponent < 0 ? -exponent : exponent); ++i) p *= base;
  return exponent < 0 ? Rational(cpp_int(1), p) : Rational(p);
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Reads digits of `base` from text[at...] into `digits` (appending); returns how many were read.
std::size_t read_digits(std::string_view text, std::size_t& at, int base, cpp_int& digits) {
  std::size_t count = 0;
  for (; at < text.size(); ++at, ++count) {
    const int d = hex_digit(text[at]);
    if (d < 0 || d >= base) break;
    digits = digits * base + d;
  }
  return count;
}

// A signed exponent after 'e' or 'p', or false when malformed or beyond `limit` in magnitude.
bool read_exponent(std::string_view text, std::size_t& at, long limit, long& exponent) {
  bool negative = false;
  if (at < text.size() && (text[at] == '+' || text[at] == '-')) negative = text[at++] == '-';
  const std::size_t start = at;
  long magnitude = 0;
  for (; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); ++at) {
    magnitude = magnitude * 10 + (text[at] - '0');
    if (magnitude > limit) return false;
  }
  exponent = negative ? -magnitude : magnitude;
  return at > start;
}

// A decimal or hexadecimal number: [sign] digits [. digits] [e|p exponent]. Hexadecimal needs the
// 'p' exponent. Returns false when `text` is not one.
bool parse_number(std::string_view text, bool& negative, Rational& magnitude) {
  std::size_t at = 0;
  negative = false;
  if (at < text.size() && (text[at] == '+' || text[at] == '-')) negative = text[at++] == '-';
  const bool hex = text.size() >= at + 2 && text[at] == '0' && (text[at + 1] == 'x' || text[at + 1] == 'X');
  if (hex) at += 2;
  const int base = hex ? 16 : 10;
  cpp_int digits = 0;
  if (read_digits(text, at, base, digits) == 0) return false;
  long fraction_digits = 0;
  if (at < text.size() && text[at] == '.') {
    ++at;
    fraction_digits = static_cast<long>(read_digits(text, at, base, digits));
  }
  long exponent = 0;
  if (hex) {
    if (at >= text.size() || (text[at] != 'p' && text[at] != 'P')) return false;
    ++at;
    if (!read_exponent(text, at, kMaxBinaryExponent, exponent)) return false;
    exponent -= 4 * fraction_digits;  // each hex fraction digit is 4 bits
  } else {
    if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
      ++at;
      if (!read_exponent(text, at, kMaxDecimalExponent, exponent)) return false;
    }
    exponent -= fraction_digits;
  }
  if (at != text.size()) return false;
  magnitude = Rational(digits) * power(hex ? 2 : 10, exponent);
  return true;
}

bool is_bit_pattern(std::string_view text) {
  if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return false;
  for (std::size_t i = 2; i < text.size(); ++i) {
    if (hex_digit(text[i]) < 0) return false;
  }
  return true;
}

Value special(Value::Kind kind, bool negative) {
  Value v;
  v.kind = kind;
  v.negative = negative;
  return v;
}

}  // namespace

std::string format_bit_pattern(std::uint16_t bits) { return format_hex(bits, 4); }

std::optional<std::uint16_t> encode_exactly(const Value& value, const FormatInfo& format) {
  const std::uint32_t sign = value.negative ? format.sign_mask : 0u;
  const std::uint32_t exponent_all_ones = (1u << format.exponent_bits) - 1;
  if (value.is_nan()) {
    const std::uint32_t quiet_bit = 1u << (format.mantissa_bits - 1);
    return static_cast<std::uint16_t>(sign | exponent_all_ones << format.mantissa_bits | quiet_bit);
  }
  if (value.is_inf()) {
    if (format.specials != Specials::kIeee) return std::nullopt;
    return static_cast<std::uint16_t>(sign | exponent_all_ones << format.mantissa_bits);
  }
  if (value.magnitude == 0) return static_cast<std::uint16_t>(sign);
  const int min_normal_exponent = 1 - format.bias;
  const int e = oracle::floor_log2(value.magnitude);
  if (e > format.emax) return std::nullopt;
  // The unit in the last place: fixed below the normal range, 2^(e - mantissa bits) above it.
  const int quantum_exponent = (e < min_normal_exponent ? min_normal_exponent : e) - format.mantissa_bits;
  const Rational units = value.magnitude * power(2, -quantum_exponent);
  if (denominator(units) != 1) return std::nullopt;
  const std::uint32_t significand = numerator(units).convert_to<std::uint32_t>();
  if (e < min_normal_exponent) return static_cast<std::uint16_t>(sign | significand);
  const std::uint32_t field = static_cast<std::uint32_t>(e + format.bias);
  const std::uint32_t mantissa = significand - (1u << format.mantissa_bits);
  const std::uint32_t code = sign | field << format.mantissa_bits | mantissa;
  if (code > (sign | format.max_code)) return std::nullopt;
  return static_cast<std::uint16_t>(code);
}

std::uint16_t parse_element(std::string_view text, InputDtype dtype) {
  const std::string shown = "'" + std::string(text.substr(0, kMaxElementTextLength)) +
                            (text.size() > kMaxElementTextLength ? "...'" : "'");
  if (text.size() > kMaxElementTextLength) {
    throw Error(shown + " is too long for an element (at most " + std::to_string(kMaxElementTextLength) + " characters)");
  }
  if (is_bit_pattern(text)) {
    if (text.size() - 2 > kMaxPatternHexDigits) {
      throw Error(shown + " is not a 16-bit pattern: write at most 4 hex digits after 0x");
    }
    std::uint32_t bits = 0;
    for (std::size_t i = 2; i < text.size(); ++i) bits = bits * 16 + static_cast<std::uint32_t>(hex_digit(text[i]));
    return static_cast<std::uint16_t>(bits);
  }
  const FormatInfo format = input_format(dtype);
  const std::string dtype_name(name(dtype));
  const std::string word = lower(text);
  Value value;
  if (word == "nan" || word == "+nan" || word == "-nan") {
    value = special(Value::Kind::kNan, word[0] == '-');
  } else if (word == "inf" || word == "+inf" || word == "-inf") {
    value = special(Value::Kind::kInf, word[0] == '-');
  } else if (!parse_number(text, value.negative, value.magnitude)) {
    throw Error(shown + " is not an element: write a bit pattern (0x3FC0), an exact value (1.5, -0x1p-133) "
                "or nan, -nan, inf, -inf");
  }
  if (const auto bits = encode_exactly(value, format)) return *bits;
  const Value nearest = oracle::round_to_ieee(value.negative, value.magnitude, format);
  if (nearest.is_inf()) {
    const Value largest = oracle::decode(format, format.max_code);
    throw Error(shown + " is beyond the largest finite " + dtype_name + ", " + format_value(largest));
  }
  throw Error(shown + " is not exact in " + dtype_name + "; the nearest " + dtype_name + " is " +
              format_bit_pattern(*encode_exactly(nearest, format)) + " (" + format_value(nearest) + ")");
}

}  // namespace mxconform::corpus
