#pragma once
// docs/contract.md step 5: fp32 bits to an element code, round-to-nearest-even, saturating, in integer
// arithmetic. One routine serves e2m1, e4m3fn and e5m2 through their FormatInfo.
#include <cstdint>

#include "fault_injection.h"
#include "mxconform/formats.h"
#include "mxconform/quantize_config.h"

namespace mxconform::impl {
inline namespace MXCONFORM_IMPL_VARIANT {

// x >> shift, rounded to nearest, ties to even. shift in [1, 31].
constexpr std::uint32_t shift_right_rne(std::uint32_t x, int shift) {
  const std::uint32_t kept = x >> shift;
  const std::uint32_t dropped = x & ((1u << shift) - 1);
  const std::uint32_t half = 1u << (shift - 1);
#ifdef MXCONFORM_FAULT_INJECTION
  if (fault_planted(Fault::kTiesAwayFromZero)) return kept + (dropped >= half ? 1 : 0);
#endif
  const bool round_up = dropped > half || (dropped == half && (kept & 1) != 0);
  return kept + (round_up ? 1 : 0);
}

// The element code for an fp32 value. NaN: FP4 (no NaN code) gives a signed zero, FP8 gives
// sign|NaN under kCanonical and a signed zero under kZero. Inf and finite overflow saturate.
constexpr std::uint32_t narrow(std::uint32_t fp32_bits, const FormatInfo& format,
                               Fp8NanPolicy nan_policy) {
  const std::uint32_t sign = (fp32_bits & Float32::kSignMask) != 0 ? format.sign_mask : 0;
  const std::uint32_t magnitude = fp32_bits & Float32::kMagnitudeMask;
  if (magnitude > Float32::kInfCode) {
    return format.has_nan && nan_policy == Fp8NanPolicy::kCanonical ? sign | format.nan_code : sign;
  }
  const int field = static_cast<int>(magnitude >> Float32::kMantissaBits);
  const int target_min_field = Float32::kBias + 1 - format.bias;  // fp32 field of the target's smallest normal
  std::uint32_t code = 0;
  if (field >= target_min_field) {
    // Rebias the exponent in place, then drop the extra mantissa bits; a carry out of the
    // mantissa increments the exponent, as it should.
    const std::uint32_t rebiased =
        magnitude - (static_cast<std::uint32_t>(Float32::kBias - format.bias) << Float32::kMantissaBits);
    code = shift_right_rne(rebiased, Float32::kMantissaBits - format.mantissa_bits);
  } else {
    // Subnormal in the target: count units of its smallest subnormal, 2^(1 - bias - m).
    const std::uint32_t significand =
        (magnitude & Float32::kMantissaMask) | (field > 0 ? Float32::kMantissaMask + 1 : 0);
    const int effective_field = field > 0 ? field : 1;
    const int shift = target_min_field - effective_field + Float32::kMantissaBits - format.mantissa_bits;
    code = shift > Float32::kMantissaBits + 1 ? 0 : shift_right_rne(significand, shift);
  }
  return sign | (code > format.max_code ? format.max_code : code);
}

static_assert(narrow(0x3F80'0000u, E4M3FN::info(), Fp8NanPolicy::kCanonical) == 0b0'0111'000);  // 1.0
static_assert(narrow(0x40C0'0000u, E2M1::info(), Fp8NanPolicy::kCanonical) == 0b0'11'1);       // 6.0

}  // namespace MXCONFORM_IMPL_VARIANT
}  // namespace mxconform::impl
