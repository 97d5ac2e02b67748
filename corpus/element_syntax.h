#pragma once
// How a corpus writes one input element: a raw bit pattern or an exact value of the input dtype.
//
//   0x3FC0             bit pattern: 0x and 1-4 hex digits, no sign, no 'p'
//   1.5  -0.25  3e-2   decimal value (optional sign, fraction and exponent)
//   -0x1p-133  0x1.8p3 hexadecimal value (C99 style, the 'p' exponent is required)
//   nan  -nan  inf  -inf  +inf
//
// A value must be exactly representable: no rounding happens here. "nan" is the quiet NaN with
// an empty payload (bfloat16 0x7FC0, float16 0x7E00); a payload needs a bit pattern.
#include <cstdint>
#include <string>
#include <string_view>

#include "mxconform/dtype.h"
#include "oracle.h"

namespace mxconform::corpus {

// The bits `text` denotes in `dtype`. Throws Error whose message names the text and the rule it
// breaks (not a 16-bit pattern, not a number, not exact in `dtype` and the nearest bits, beyond
// the finite range). Bounded: at most kMaxElementTextLength characters are examined.
std::uint16_t parse_element(std::string_view text, InputDtype dtype);

inline constexpr std::size_t kMaxElementTextLength = 160;

// The bits of an exact `value` of `format` (a binary format with at most 16 bits); nullopt when
// `format` does not hold it exactly or it is beyond the largest finite value. NaN gives the quiet
// NaN with an empty payload.
std::optional<std::uint16_t> encode_exactly(const oracle::Value& value, const FormatInfo& format);

// "0x3FC0": the spelling write_repro_case uses for every element.
std::string format_bit_pattern(std::uint16_t bits);

}  // namespace mxconform::corpus
