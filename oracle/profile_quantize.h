#pragma once
// The reference for every profile other than neuron (include/mxconform/profile.h), from the
// definitions in docs/contract.md, "Profiles", in exact arithmetic. The Neuron path stays in
// oracle.cpp, untouched; oracle::quantize sends every other profile here.
#include <cstdint>

#include "oracle.h"

namespace mxconform::oracle {

// E8M0 byte of a block under a scale rule, from the block's exact values. Throws std::logic_error
// for the neuron rule (oracle.cpp's block_e8m0 computes it).
int profile_e8m0(const QuantizeConfig& config, const std::vector<Value>& block);

// RCEIL's conversion of an fp32 bit pattern to E8M0 (round up to a power of two; 0xFF for NaN and
// Inf and, without satfinite, past 2^127; with satfinite 0xFE for Inf and at most 0xFE).
int rceil_e8m0(std::uint32_t fp32_bits, bool satfinite);

// The nearest code of `element` to |y| under `rounding`, saturating or not, with y's sign.
// NaN gives the canonical NaN code (FP8, with y's sign) or a signed zero (FP4).
std::uint32_t narrow_with(const Value& y, ElementKind element, ElementRounding rounding, Overflow overflow);

// The whole path of config.profile on P*F raw input elements; buffer sizes as Subject::quantize.
void quantize_profile(const QuantizeConfig& config, const std::uint16_t* input, std::uint8_t* data,
                      std::uint8_t* scale);
// decode(code) * 2^(e8m0 - 127) rounded to float32; E8M0 0xFF gives NaN.
void dequantize_profile(const QuantizeConfig& config, const std::uint8_t* data, const std::uint8_t* scale,
                        float* output);

}  // namespace mxconform::oracle
