#include "exact.h"

#include <stdexcept>

namespace mxconform::oracle {

using boost::multiprecision::cpp_int;

Rational power_of_two(int exponent) {
  if (exponent >= 0) return Rational(cpp_int(1) << exponent);
  return Rational(cpp_int(1), cpp_int(1) << -exponent);
}

std::uint32_t fp32_magnitude_bits(const Rational& magnitude) {
  const FormatInfo f32 = Float32::info();
  if (magnitude == 0) return 0;
  const int min_normal = 1 - f32.bias;
  const int e = floor_log2(magnitude);
  if (e < min_normal) {
    const Rational units = magnitude / power_of_two(min_normal - f32.mantissa_bits);
    if (denominator(units) != 1) throw std::logic_error("oracle: not an fp32 subnormal");
    return numerator(units).convert_to<std::uint32_t>();
  }
  const Rational significand = magnitude / power_of_two(e - f32.mantissa_bits);
  if (denominator(significand) != 1) throw std::logic_error("oracle: not an fp32 value");
  return (static_cast<std::uint32_t>(e + f32.bias) << f32.mantissa_bits) |
         (numerator(significand).convert_to<std::uint32_t>() - (1u << f32.mantissa_bits));
}

const FormatInfo& element_info(ElementKind element) {
  static const FormatInfo kFp4 = E2M1::info();
  static const FormatInfo kE4m3 = E4M3FN::info();
  static const FormatInfo kE5m2 = E5M2::info();
  switch (element) {
    case ElementKind::kFp4E2m1: return kFp4;
    case ElementKind::kFp8E4m3fn: return kE4m3;
    case ElementKind::kFp8E5m2: return kE5m2;
  }
  throw std::logic_error("oracle: unknown element kind");
}

std::vector<Rational> finite_values(const FormatInfo& format) {
  std::vector<Rational> values;
  for (std::uint32_t code = 0; code < format.sign_mask; ++code) {
    const Value v = decode(format, code);
    if (!v.is_finite()) break;  // the first special ends the finite codes
    values.push_back(v.magnitude);
  }
  for (std::size_t i = 1; i < values.size(); ++i) {
    if (!(values[i - 1] < values[i])) throw std::logic_error("oracle: finite values not ascending");
  }
  return values;
}

const std::vector<Rational>& finite_values(ElementKind element) {
  static const std::vector<Rational> kFp4 = finite_values(element_info(ElementKind::kFp4E2m1));
  static const std::vector<Rational> kE4m3 = finite_values(element_info(ElementKind::kFp8E4m3fn));
  static const std::vector<Rational> kE5m2 = finite_values(element_info(ElementKind::kFp8E5m2));
  switch (element) {
    case ElementKind::kFp4E2m1: return kFp4;
    case ElementKind::kFp8E4m3fn: return kE4m3;
    case ElementKind::kFp8E5m2: return kE5m2;
  }
  throw std::logic_error("oracle: unknown element kind");
}

}  // namespace mxconform::oracle
