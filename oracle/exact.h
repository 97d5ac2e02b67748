#pragma once
// The oracle's exact-arithmetic helpers, shared by its neuron path (oracle.cpp) and its other
// profiles (profile_quantize.cpp). Internal to oracle/; like the rest of it, derived from the
// format definitions and sharing no numeric code with impl/.
#include <cstdint>
#include <vector>

#include "oracle.h"

namespace mxconform::oracle {

// 2^exponent, exactly.
Rational power_of_two(int exponent);

// The fp32 bit pattern, sign clear, of a finite magnitude >= 0 that fp32 holds exactly (normal or
// subnormal); std::logic_error for any other magnitude.
std::uint32_t fp32_magnitude_bits(const Rational& magnitude);

// The format of an element kind (E2M1, E4M3FN, E5M2).
const FormatInfo& element_info(ElementKind element);
// The finite non-negative values of an element kind, by code, ascending (decoded, checked).
const std::vector<Rational>& finite_values(ElementKind element);
// The same for any format: its codes from 0 up to the first special or the sign bit.
std::vector<Rational> finite_values(const FormatInfo& format);

}  // namespace mxconform::oracle
