#pragma once
// Exact conversions from decimal values to input bit patterns, for hand-derived test cases. They
// refuse (abort the test) rather than round: a test's input must be exactly what it says.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace mxconform::test {

inline std::uint32_t float_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// bfloat16 bits of `value`; throws unless bfloat16 holds it exactly.
inline std::uint16_t bf16(double value) {
  const float narrowed = static_cast<float>(value);
  const std::uint32_t bits = float_bits(narrowed);
  if (!std::isnan(value) && (static_cast<double>(narrowed) != value || (bits & 0xFFFF) != 0)) {
    throw std::invalid_argument("not a bfloat16 value: " + std::to_string(value));
  }
  return static_cast<std::uint16_t>(bits >> 16);
}

inline constexpr std::uint16_t kBf16Nan = 0x7FC0;
inline constexpr std::uint16_t kBf16NegNan = 0xFFC0;
inline constexpr std::uint16_t kBf16Inf = 0x7F80;
inline constexpr std::uint16_t kBf16NegInf = 0xFF80;

}  // namespace mxconform::test
