#pragma once
// Exact values and codes as people read them: "1.5", "-0", "nan", "1.25*2^-133", "0x7F".
#include <cstdint>
#include <string>

#include "oracle.h"

namespace mxconform::corpus {

// Plain decimal when it has at most 12 digits after the point and an integer part below 10^9;
// otherwise the normalised form "m*2^e" with 1 <= m < 2 written in decimal ("2^e" when m is 1). Every value of the
// formats mxconform handles is a dyadic rational, so both forms are exact.
std::string format_value(const oracle::Value& value);

// "0x" and `digits` upper-case hex digits of `value` (the low 4*digits bits).
std::string format_hex(std::uint32_t value, int digits);

// format_value of a magnitude (>= 0) with a sign.
std::string format_value(bool negative, const oracle::Rational& magnitude);

}  // namespace mxconform::corpus
