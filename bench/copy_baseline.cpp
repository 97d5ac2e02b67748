#include "copy_baseline.h"

#include <emmintrin.h>

#include <cstring>

#include "avx2_kernels.h"
#include "mxconform/cpu_features.h"

namespace mxconform::bench {
namespace {

bool use_avx2() {
  static const bool kAvx2 = CpuFeatures::detect().avx2;
  return kAvx2;
}

// SSE2 is part of x86-64, so this needs no target attribute.
void sse2_copy_non_temporal(const void* source, void* destination, std::size_t bytes) {
  const auto* from = static_cast<const __m128i*>(source);
  auto* to = static_cast<__m128i*>(destination);
  const std::size_t vectors = bytes / sizeof(__m128i);
  for (std::size_t v = 0; v < vectors; ++v) _mm_stream_si128(to + v, _mm_load_si128(from + v));
  _mm_sfence();
  const std::size_t done = vectors * sizeof(__m128i);
  std::memcpy(static_cast<char*>(destination) + done, static_cast<const char*>(source) + done, bytes - done);
}

}  // namespace

void copy_non_temporal(const void* source, void* destination, std::size_t bytes) {
  static const auto kCopy = use_avx2() ? avx2::copy_non_temporal : sse2_copy_non_temporal;
  kCopy(source, destination, bytes);
}

std::string_view copy_non_temporal_isa() { return use_avx2() ? "avx2" : "sse2"; }

}  // namespace mxconform::bench
