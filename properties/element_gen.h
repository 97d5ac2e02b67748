#pragma once
// Input elements in the style of Berkeley TestFloat: an exponent field from a table of special
// binades and a significand from a table of bit patterns, for bfloat16 and float16.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mxconform/dtype.h"

namespace mxconform::properties {

// Significand patterns of `bits` bits: all zeros, all ones, walking one, walking zero, runs of
// leading ones and runs of trailing ones, in that order, without repeats.
std::vector<std::uint32_t> significand_patterns(int bits);

// Exponent fields, simplest first: the bias (1.0), zero/subnormal, the smallest normals, the band
// around the bias where the prescale puts most values at E8M0 127, the largest finite, Inf/NaN.
std::vector<std::uint32_t> exponent_fields(InputDtype dtype);

// The positive elements exponent x significand: entry 0 is 1.0; every entry is distinct.
// Exponent field all-ones gives Inf (significand 0) or NaN payloads.
const std::vector<std::uint16_t>& testfloat_elements(InputDtype dtype);

// Positive zeros-and-subnormals of the input format from the significand patterns (entry 0 is 0).
const std::vector<std::uint16_t>& subnormal_elements(InputDtype dtype);

// Positive NaNs with distinct payloads: the canonical quiet NaN first, then signalling ones.
const std::vector<std::uint16_t>& nan_elements(InputDtype dtype);

// +Inf.
std::uint16_t inf_element(InputDtype dtype);

}  // namespace mxconform::properties
