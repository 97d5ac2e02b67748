#pragma once
// The data stores both SIMD kernels share: one vector of output bytes, ordinary or non-temporal,
// and the non-temporal write of gathered whole cache lines (data_stores.h decides which). Included
// only by the kernel files: every function carries an AVX2 target attribute, a subset of both
// kernels' targets, so it inlines into either and nothing here runs before the run-time dispatch.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "data_stores.h"

#define MXCONFORM_SIMD_STORE __attribute__((target("avx2"), always_inline)) inline
// Called from the shared loop (chunk_loop.h), which has no target attribute: inlined by the
// kernels' `flatten` entry points rather than forced.
#define MXCONFORM_SIMD_LOOP_STORE __attribute__((target("avx2"))) inline

namespace mxconform::impl::simd {

// One 256- or 128-bit vector of output bytes to `to` (non-temporal with kStream: `to` aligned
// to the vector's size).
template <bool kStream, class Vector>
MXCONFORM_SIMD_STORE void store_bytes(void* to, Vector bytes) {
  static_assert(sizeof(Vector) == sizeof(__m256i) || sizeof(Vector) == sizeof(__m128i));
  if constexpr (sizeof(Vector) == sizeof(__m256i)) {
    kStream ? _mm256_stream_si256(static_cast<__m256i*>(to), bytes) : _mm256_storeu_si256(static_cast<__m256i*>(to), bytes);
  } else {
    kStream ? _mm_stream_si128(static_cast<__m128i*>(to), bytes) : _mm_storeu_si128(static_cast<__m128i*>(to), bytes);
  }
}

// `rows` lines of kCacheLineBytes from `lines` (contiguous, line-aligned) to `to`, `to + stride`,
// ...: each line's two halves leave back to back, so its write-combining buffer fills at once.
// Precondition: `to` and `stride` multiples of kCacheLineBytes.
MXCONFORM_SIMD_LOOP_STORE void stream_lines(const std::uint8_t* lines, std::size_t rows, std::uint8_t* to, std::size_t stride) {
  constexpr std::size_t kHalf = kCacheLineBytes / 2;
  static_assert(kHalf == sizeof(__m256i));
  for (std::size_t r = 0; r < rows; ++r, lines += kCacheLineBytes, to += stride) {
    const __m256i low = _mm256_load_si256(reinterpret_cast<const __m256i*>(lines));
    const __m256i high = _mm256_load_si256(reinterpret_cast<const __m256i*>(lines + kHalf));
    _mm256_stream_si256(reinterpret_cast<__m256i*>(to), low);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(to + kHalf), high);
  }
}

// After the last non-temporal store of a quantize: orders them before any later store.
MXCONFORM_SIMD_LOOP_STORE void end_streaming() { _mm_sfence(); }

}  // namespace mxconform::impl::simd

#undef MXCONFORM_SIMD_STORE
#undef MXCONFORM_SIMD_LOOP_STORE
