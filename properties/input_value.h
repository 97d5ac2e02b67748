#pragma once
// Input elements (bfloat16 and float16 bits) as exact values and back, from the format traits.
// The suite's own decoding for building and classifying cases: cheap doubles, not the oracle's
// rationals, and no code shared with impl/. Every finite input value is exact in a double.
#include <cstdint>
#include <optional>

#include "mxconform/dtype.h"

namespace mxconform::properties {

bool is_nan(InputDtype dtype, std::uint16_t bits);
bool is_inf(InputDtype dtype, std::uint16_t bits);
bool is_negative(InputDtype dtype, std::uint16_t bits);
// True for zero and for every value below the smallest normal of the input format.
bool is_zero_or_subnormal(InputDtype dtype, std::uint16_t bits);

// The exact value: +-0, finite, +-inf, or a quiet NaN.
double value_of(InputDtype dtype, std::uint16_t bits);

// The bits of `value` when the input format holds it exactly (signed zeros and infinities
// included); nullopt for NaN and for values that would need rounding or overflow.
std::optional<std::uint16_t> bits_of(InputDtype dtype, double value);

// The fp32 exponent field of the widened element (docs/contract.md steps 1-2): 0 for zeros and fp32
// denormals, 255 for Inf and NaN. A float16 subnormal widens to an fp32 normal (field 103..112).
int fp32_exponent_field(InputDtype dtype, std::uint16_t bits);

// The element `units` steps of the last place away in magnitude (the sign kept): nullopt when
// that crosses zero or leaves the finite range.
std::optional<std::uint16_t> nudge(InputDtype dtype, std::uint16_t bits, int units);

// The input format's field layout.
std::uint16_t sign_mask(InputDtype dtype);
std::uint16_t exponent_field_max(InputDtype dtype);  // all ones: Inf and NaN
int mantissa_bits(InputDtype dtype);
std::uint32_t exponent_field(InputDtype dtype, std::uint16_t bits);  // the input format's own field
std::uint16_t make_bits(InputDtype dtype, bool negative, std::uint32_t exponent_field, std::uint32_t mantissa);

}  // namespace mxconform::properties
