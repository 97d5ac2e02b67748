#include "value_text.h"

namespace mxconform::corpus {
namespace {

using boost::multiprecision::cpp_int;

constexpr int kMaxPlainFractionDigits = 12;
const cpp_int kMaxPlainIntegerPart = cpp_int(1'000'000'000);

// The exponent n with denominator == 2^n, or -1 when the denominator is not a power of two.
int denominator_power_of_two(const cpp_int& denominator) {
  const int n = static_cast<int>(msb(denominator));
  return denominator == (cpp_int(1) << n) ? n : -1;
}

// Decimal digits of numerator / 2^n, exact: numerator * 5^n / 10^n.
std::string dyadic_decimal(const cpp_int& numerator, int n) {
  cpp_int scaled = numerator;
  for (int i = 0; i < n; ++i) scaled *= 5;
  std::string digits = scaled.str();
  if (n == 0) return digits;
  if (static_cast<int>(digits.size()) <= n) digits.insert(0, n + 1 - digits.size(), '0');
  std::string text = digits.substr(0, digits.size() - n) + "." + digits.substr(digits.size() - n);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

}  // namespace

std::string format_hex(std::uint32_t value, int digits) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string text = "0x";
  for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) text += kDigits[(value >> shift) & 0xF];
  return text;
}

std::string format_value(bool negative, const oracle::Rational& magnitude) {
  const std::string sign = negative ? "-" : "";
  if (magnitude == 0) return sign + "0";
  const cpp_int& num = numerator(magnitude);
  const cpp_int& den = denominator(magnitude);
  const int n = denominator_power_of_two(den);
  if (n < 0) return sign + num.str() + "/" + den.str();
  if (n <= kMaxPlainFractionDigits && num / den < kMaxPlainIntegerPart) return sign + dyadic_decimal(num, n);
  // Normalise to m * 2^e with 1 <= m < 2: m = magnitude / 2^e.
  const int e = oracle::floor_log2(magnitude);
  oracle::Rational m = magnitude;
  if (e >= 0) {
    m /= oracle::Rational(cpp_int(1) << e);
  } else {
    m *= oracle::Rational(cpp_int(1) << -e);
  }
  const int m_power = denominator_power_of_two(denominator(m));
  const std::string power = "2^" + std::to_string(e);
  return sign + (m == 1 ? power : dyadic_decimal(numerator(m), m_power) + "*" + power);
}

std::string format_value(const oracle::Value& value) {
  const std::string sign = value.negative ? "-" : "";
  if (value.is_nan()) return sign + "nan";
  if (value.is_inf()) return sign + "inf";
  return format_value(value.negative, value.magnitude);
}

}  // namespace mxconform::corpus
