#pragma once
// Deterministic, activation-like quantizer input, as raw bfloat16 or float16 bits.
#include <cstddef>
#include <cstdint>

#include "aligned_buffer.h"
#include "bench_cases.h"
#include "mxconform/dtype.h"

namespace mxconform::bench {

// P*F raw bits of `dtype`, partition-major. Each partition has its own scale 2^u (u uniform in
// [-4, 4]); values are Gaussian times that scale, and about one in 256 is an outlier 16 to 64
// times larger. The values come from a fixed seed: identical across runs and for both dtypes
// (up to each dtype's rounding). Every page is written.
AlignedBuffer<std::uint16_t> make_input(const BenchSize& size, InputDtype dtype);

// The high half of the float32 bits (truncation, as a bfloat16 tensor cast from float32 by
// dropping bits).
std::uint16_t bfloat16_bits(float value);
// float32 -> float16 rounded to nearest, ties to even; overflow gives Inf, NaN stays a quiet
// NaN with the top payload bits (what F16C's vcvtps2ph does).
std::uint16_t float16_bits(float value);

}  // namespace mxconform::bench
