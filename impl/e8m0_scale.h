#pragma once
// docs/contract.md steps 2-4: the block's exponent measure, its E8M0 byte and the prescale multiplier.
#include <algorithm>
#include <cstdint>

#include "fault_injection.h"
#include "mxconform/formats.h"

namespace mxconform::impl {
inline namespace MXCONFORM_IMPL_VARIANT {

// The fp32 exponent field: sign dropped, denormals and zeros 0, Inf and NaN 255. Not ilogbf.
constexpr std::uint32_t exponent_field(std::uint32_t fp32_bits) {
#ifdef MXCONFORM_FAULT_INJECTION
  if (fault_planted(Fault::kSignInExponent)) return fp32_bits >> Float32::kMantissaBits;
#endif
  return (fp32_bits & Float32::kExponentMask) >> Float32::kMantissaBits;
}

// E8M0 = max(1, max(0, max_field - emax_bias)): CLAMP-LOW, then ZERO-FLOOR.
constexpr std::uint32_t e8m0_from_max_field(std::uint32_t max_field, int emax_bias) {
  const int shifted = static_cast<int>(max_field) - emax_bias;
#ifdef MXCONFORM_FAULT_INJECTION
  if (fault_planted(Fault::kNoZeroFloor)) return static_cast<std::uint32_t>(std::max(0, shifted));
#endif
  return static_cast<std::uint32_t>(std::max(1, std::max(0, shifted)));
}

// The multiplier's bits, bit_cast<float>((254 - e8m0) << 23): 2^(127 - e8m0) for e8m0 <= 253,
// +0.0 for e8m0 = 254.
constexpr std::uint32_t multiplier_bits(std::uint32_t e8m0) {
  constexpr std::uint32_t kTwiceBias = 2 * Float32::kBias;
  return (kTwiceBias - e8m0) << Float32::kMantissaBits;
}

static_assert(multiplier_bits(127) == 0x3F80'0000u);
static_assert(multiplier_bits(254) == 0);
static_assert(e8m0_from_max_field(0, 2) == 1 && e8m0_from_max_field(129, 2) == 127);

}  // namespace MXCONFORM_IMPL_VARIANT
}  // namespace mxconform::impl
