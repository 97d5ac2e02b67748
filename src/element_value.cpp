#include "mxconform/element_value.h"

#include <cmath>
#include <limits>

#include "mxconform/formats.h"

namespace mxconform {
namespace {

template <class Format>
double value_in(std::uint16_t bits) {
  const std::uint32_t exponent = (bits & Format::kExponentMask) >> Format::kMantissaBits;
  const std::uint32_t mantissa = bits & Format::kMantissaMask;
  double magnitude;
  if (exponent == Format::kExponentFieldMax) {
    magnitude = mantissa == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else if (exponent == 0) {  // zero or subnormal: mantissa * 2^(emin - m)
    magnitude = std::ldexp(static_cast<double>(mantissa), Format::kEmin - Format::kMantissaBits);
  } else {
    const double significand = static_cast<double>(mantissa | (std::uint32_t{1} << Format::kMantissaBits));
    magnitude = std::ldexp(significand, static_cast<int>(exponent) - Format::kBias - Format::kMantissaBits);
  }
  return (bits & Format::kSignMask) != 0 ? -magnitude : magnitude;
}

}  // namespace

double input_value(InputDtype dtype, std::uint16_t bits) {
  return dtype == InputDtype::kBfloat16 ? value_in<Bfloat16>(bits) : value_in<Float16>(bits);
}

}  // namespace mxconform
