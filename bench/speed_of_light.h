#pragma once
// Speed-of-light (SoL) kernels: for one output family, move exactly the bytes a quantize pass
// moves (bench_cases.h, traffic()) with the least work that still touches all of them. A
// quantizer's sol_ratio is its throughput divided by its SoL kernel's, for the same size.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bench_cases.h"

namespace mxconform::bench {

// Reads `elements` input elements; writes `elements` data bytes (FP8) or elements/2 (FP4),
// plus elements/32 scale bytes, contiguously from `scale`. The data bytes are a trivial
// function of the input (the high byte of each element; for FP4 the top nibbles of two), so
// the work cannot be elided. Precondition: elements % 64 == 0.
using SolKernel = void (*)(const std::uint16_t* input, std::size_t elements, std::uint8_t* data,
                           std::uint8_t* scale);

// The kernels for `family`: AVX2 when this CPU has it, portable C++ otherwise; chosen once.
// `streaming` uses non-temporal stores (data 32-byte aligned); null without AVX2.
struct SolKernels {
  SolKernel ordinary;
  SolKernel streaming;
};
SolKernels sol_kernels(OutputFamily family);
// "avx2" or "scalar": which kernels sol_kernels() returns.
std::string_view sol_kernel_isa();

}  // namespace mxconform::bench
