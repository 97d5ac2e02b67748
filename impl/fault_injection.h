#pragma once
// The fault switch of the planted-fault test (properties/fault_injection_test.cpp).
//
// The portable sources of impl/ are compiled twice: into mxconform::impl, the production library,
// and, for tests only, into mxconform::impl_faulty with MXCONFORM_FAULT_INJECTION defined. Each
// build puts its code in its own inline namespace (`portable` or `faulty`), so one test binary can
// link both without two definitions of one name. Without the define this header declares no
// switch: the production library cannot plant a fault.

#ifdef MXCONFORM_FAULT_INJECTION
#define MXCONFORM_IMPL_VARIANT faulty
#else
#define MXCONFORM_IMPL_VARIANT portable
#endif

#ifdef MXCONFORM_FAULT_INJECTION
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "mxconform/formats.h"

namespace mxconform::impl {
inline namespace MXCONFORM_IMPL_VARIANT {

// Deliberate bugs, each a plausible misreading of docs/contract.md.
enum class Fault {
  kNone,
  kIlogbfExponent,    // step 2 measured with ilogbf: a NaN reads FP_ILOGBNAN and sets no maximum
  kNoZeroFloor,       // step 3 without ZERO-FLOOR: an E8M0 byte of 0 is kept
  kTiesAwayFromZero,  // step 5 rounds ties away from zero instead of to the even code
  kNoLaneRemap,       // step 6 ignores the FP4 lane stride
  kSignInExponent,    // step 2 reads bits >> 23 with the sign bit still in it
  kEmaxOffByOne,      // step 3 subtracts EMAX + 1
  kDenormalsAreZero,  // step 1 reads fp32-denormal inputs as zeros (x86 DAZ)
  kLogicalScaleRows,  // step 7 writes logical row i to row i in the physical layout
};

struct FaultInfo {
  Fault fault;
  std::string_view name;         // a short identifier, e.g. "ilogbf-exponent"
  std::string_view description;  // one line
};

inline constexpr FaultInfo kFaults[] = {
    {Fault::kIlogbfExponent, "ilogbf-exponent", "block max exponent from ilogbf (NaN reads FP_ILOGBNAN)"},
    {Fault::kNoZeroFloor, "no-zero-floor", "E8M0 = max(0, maxExpField - emaxBias), no bump of 0 to 1"},
    {Fault::kTiesAwayFromZero, "ties-away", "the narrow rounds ties away from zero"},
    {Fault::kNoLaneRemap, "no-lane-remap", "FP4 nibbles packed as if the lane stride were 0"},
    {Fault::kSignInExponent, "sign-in-exponent", "exponent field read as bits >> 23, sign included"},
    {Fault::kEmaxOffByOne, "emax-off-by-one", "emaxBias one larger than the configured mode's"},
    {Fault::kDenormalsAreZero, "denormals-are-zero", "fp32-denormal inputs read as signed zeros"},
    {Fault::kLogicalScaleRows, "logical-scale-rows", "physical layout writes scale row i at row i"},
};

// The planted fault: kNone until plant_fault names another. Not thread-safe (tests only).
inline Fault& planted_fault() {
  static Fault fault = Fault::kNone;
  return fault;
}
inline void plant_fault(Fault fault) { planted_fault() = fault; }

// True when `fault` is planted. False during constant evaluation, so the static_asserts of impl/
// keep checking the real code.
constexpr bool fault_planted(Fault fault) {
  return !__builtin_is_constant_evaluated() && planted_fault() == fault;
}

// kIlogbfExponent: ilogbf(x) + 127, clamped to a byte. Agrees with the exponent field except for
// NaN, where FP_ILOGBNAN (INT_MIN on x86 glibc) makes it 0.
inline std::uint32_t ilogbf_exponent_field(std::uint32_t fp32_bits) {
  float x;
  std::memcpy(&x, &fp32_bits, sizeof x);
  const long long field = static_cast<long long>(std::ilogbf(x)) + Float32::kBias;
  return static_cast<std::uint32_t>(std::clamp<long long>(field, 0, Float32::kExponentFieldMax));
}

// kDenormalsAreZero: an fp32 denormal becomes the zero of its sign.
constexpr std::uint32_t denormal_as_zero(std::uint32_t fp32_bits) {
  const bool denormal = (fp32_bits & Float32::kExponentMask) == 0;
  return denormal ? fp32_bits & Float32::kSignMask : fp32_bits;
}

}  // namespace MXCONFORM_IMPL_VARIANT
}  // namespace mxconform::impl
#endif
