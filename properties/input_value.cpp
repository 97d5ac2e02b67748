#include "input_value.h"

#include "mxconform/element_value.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "mxconform/formats.h"

namespace mxconform::properties {
namespace {

struct Layout {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  std::uint16_t sign_mask;
  std::uint16_t exponent_max;  // all-ones exponent field
  std::uint16_t mantissa_mask;
};

template <typename Format>
constexpr Layout layout_of() {
  return Layout{Format::kExponentBits,
                Format::kMantissaBits,
                Format::kBias,
                static_cast<std::uint16_t>(Format::kSignMask),
                static_cast<std::uint16_t>(Format::kExponentFieldMax),
                static_cast<std::uint16_t>(Format::kMantissaMask)};
}

const Layout& layout(InputDtype dtype) {
  static constexpr Layout kBfloat16 = layout_of<Bfloat16>();
  static constexpr Layout kFloat16 = layout_of<Float16>();
  return dtype == InputDtype::kBfloat16 ? kBfloat16 : kFloat16;
}

std::uint32_t exponent_of(const Layout& l, std::uint16_t bits) { return (bits >> l.mantissa_bits) & l.exponent_max; }

}  // namespace

std::uint16_t sign_mask(InputDtype dtype) { return layout(dtype).sign_mask; }
std::uint16_t exponent_field_max(InputDtype dtype) { return layout(dtype).exponent_max; }
int mantissa_bits(InputDtype dtype) { return layout(dtype).mantissa_bits; }

std::uint32_t exponent_field(InputDtype dtype, std::uint16_t bits) { return exponent_of(layout(dtype), bits); }

std::uint16_t make_bits(InputDtype dtype, bool negative, std::uint32_t exponent_field, std::uint32_t mantissa) {
  const Layout& l = layout(dtype);
  return static_cast<std::uint16_t>((negative ? l.sign_mask : 0) | (exponent_field << l.mantissa_bits) |
                                    (mantissa & l.mantissa_mask));
}

bool is_nan(InputDtype dtype, std::uint16_t bits) {
  const Layout& l = layout(dtype);
  return exponent_of(l, bits) == l.exponent_max && (bits & l.mantissa_mask) != 0;
}

bool is_inf(InputDtype dtype, std::uint16_t bits) {
  const Layout& l = layout(dtype);
  return exponent_of(l, bits) == l.exponent_max && (bits & l.mantissa_mask) == 0;
}

bool is_negative(InputDtype dtype, std::uint16_t bits) { return (bits & layout(dtype).sign_mask) != 0; }

bool is_zero_or_subnormal(InputDtype dtype, std::uint16_t bits) { return exponent_of(layout(dtype), bits) == 0; }

double value_of(InputDtype dtype, std::uint16_t bits) { return input_value(dtype, bits); }

std::optional<std::uint16_t> bits_of(InputDtype dtype, double value) {
  const Layout& l = layout(dtype);
  if (std::isnan(value)) return std::nullopt;
  const bool negative = std::signbit(value);
  const double magnitude = std::fabs(value);
  if (std::isinf(value)) return make_bits(dtype, negative, l.exponent_max, 0);
  if (magnitude == 0) return make_bits(dtype, negative, 0, 0);
  int e2;
  std::frexp(magnitude, &e2);  // magnitude in [2^(e2-1), 2^e2)
  const int unbiased = e2 - 1;
  const int emin = 1 - l.bias;
  // Units of the last place: 2^(unbiased - m) for normals, 2^(emin - m) in the subnormal band.
  const int quantum = std::max(unbiased, emin) - l.mantissa_bits;
  const double units = std::ldexp(magnitude, -quantum);
  if (units != std::floor(units)) return std::nullopt;
  const auto significand = static_cast<std::uint32_t>(units);
  if (unbiased < emin) return make_bits(dtype, negative, 0, significand);
  const int field = unbiased + l.bias;
  if (field >= l.exponent_max) return std::nullopt;
  return make_bits(dtype, negative, static_cast<std::uint32_t>(field), significand);
}

int fp32_exponent_field(InputDtype dtype, std::uint16_t bits) {
  const Layout& l = layout(dtype);
  if (exponent_of(l, bits) == l.exponent_max) return static_cast<int>(Float32::kExponentFieldMax);
  const double magnitude = std::fabs(value_of(dtype, bits));
  if (magnitude < std::ldexp(1.0, Float32::kEmin)) return 0;  // zero or an fp32 denormal
  int e2;
  std::frexp(magnitude, &e2);
  return e2 - 1 + Float32::kBias;
}

std::optional<std::uint16_t> nudge(InputDtype dtype, std::uint16_t bits, int units) {
  const Layout& l = layout(dtype);
  const int magnitude = bits & ~l.sign_mask;
  const int moved = magnitude + units;
  const int infinity = l.exponent_max << l.mantissa_bits;
  if (moved < 0 || moved >= infinity || magnitude >= infinity) return std::nullopt;
  return static_cast<std::uint16_t>((bits & l.sign_mask) | moved);
}

}  // namespace mxconform::properties
