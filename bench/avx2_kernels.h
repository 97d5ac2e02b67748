#pragma once
// The AVX2 versions of the speed-of-light and copy kernels. Call only when
// CpuFeatures::detect().avx2 holds; the portable versions and the dispatch live in
// speed_of_light.cpp and copy_baseline.cpp.
#include <cstddef>
#include <cstdint>

namespace mxconform::bench::avx2 {

// As SolKernel (speed_of_light.h), FP8 and FP4 families, with ordinary or streaming
// (non-temporal, 32-byte aligned data) stores.
void sol_fp8(const std::uint16_t* input, std::size_t elements, std::uint8_t* data, std::uint8_t* scale);
void sol_fp8_streaming(const std::uint16_t* input, std::size_t elements, std::uint8_t* data, std::uint8_t* scale);
void sol_fp4(const std::uint16_t* input, std::size_t elements, std::uint8_t* data, std::uint8_t* scale);
void sol_fp4_streaming(const std::uint16_t* input, std::size_t elements, std::uint8_t* data, std::uint8_t* scale);

// As copy_non_temporal (copy_baseline.h), with 32-byte streaming stores.
__attribute__((target("avx2"))) void copy_non_temporal(const void* source, void* destination,
                                                       std::size_t bytes);

}  // namespace mxconform::bench::avx2
