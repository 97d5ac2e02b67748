#pragma once
// docs/contract.md step 1: widen bfloat16 and float16 bits to fp32 bits, exactly.
#include <cstdint>

#include "fault_injection.h"
#include "mxconform/formats.h"

namespace mxconform::impl {
inline namespace MXCONFORM_IMPL_VARIANT {

constexpr std::uint32_t widen_bf16(std::uint16_t bits) {
  return static_cast<std::uint32_t>(bits) << (Float32::kBits - Bfloat16::kBits);
}

// float16 subnormals become fp32 normals; Inf and NaN keep sign and payload.
constexpr std::uint32_t widen_f16(std::uint16_t bits) {
  constexpr int kMantissaShift = Float32::kMantissaBits - Float16::kMantissaBits;
  constexpr std::uint32_t kRebias = Float32::kBias - Float16::kBias;
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & Float16::kSignMask) << (Float32::kBits - Float16::kBits);
  std::uint32_t exponent = (bits & Float16::kExponentMask) >> Float16::kMantissaBits;
  std::uint32_t mantissa = bits & Float16::kMantissaMask;
  if (exponent == Float16::kExponentFieldMax) {
    return sign | Float32::kExponentMask | (mantissa << kMantissaShift);
  }
  if (exponent == 0) {
    if (mantissa == 0) return sign;
    // Normalise: shift the leading one up to the implicit-bit position.
    exponent = kRebias + 1;
    while ((mantissa & (Float16::kMantissaMask + 1)) == 0) {
      mantissa <<= 1;
      --exponent;
    }
    mantissa &= Float16::kMantissaMask;
    return sign | (exponent << Float32::kMantissaBits) | (mantissa << kMantissaShift);
  }
  return sign | ((exponent + kRebias) << Float32::kMantissaBits) | (mantissa << kMantissaShift);
}

static_assert(widen_bf16(0b0'01111111'0000000) == 0x3F80'0000u);       // 1.0
static_assert(widen_f16(0b0'01111'0000000000) == 0x3F80'0000u);        // 1.0
static_assert(widen_f16(0b0'00000'0000000001) == 0x3380'0000u);        // 2^-24, an fp32 normal
static_assert(widen_f16(0b1'11111'0000000000) == 0xFF80'0000u);        // -Inf

}  // namespace MXCONFORM_IMPL_VARIANT
}  // namespace mxconform::impl
