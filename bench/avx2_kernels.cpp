#include "avx2_kernels.h"

#include <immintrin.h>

#include <cstring>

namespace mxconform::bench::avx2 {
namespace {

constexpr std::size_t kVectorBytes = sizeof(__m256i);
constexpr std::size_t kVectorElements = kVectorBytes / sizeof(std::uint16_t);  // 16
constexpr std::size_t kScaleGroup = 32;  // elements per scale byte, as in a quantize block
constexpr int kByteBits = 8;
constexpr int kNibbleBits = 4;

__attribute__((target("avx2"))) __m256i load(const std::uint16_t* from) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from));
}

// Each 32-bit lane holds two elements; it becomes (second's top nibble << 4) | (first's top
// nibble): one shift and one multiply-add (nibble * 1 + nibble * 16), at most 0xFF.
__attribute__((target("avx2"))) __m256i top_nibbles_of_pairs(__m256i pairs) {
  constexpr int kFirstWeight = 1;
  constexpr int kSecondWeight = 1 << kNibbleBits;
  const __m256i nibbles = _mm256_srli_epi16(pairs, kByteBits + kNibbleBits);
  return _mm256_madd_epi16(nibbles, _mm256_set1_epi32(kSecondWeight << 16 | kFirstWeight));
}

template <bool kStream>
__attribute__((target("avx2"))) void store(std::uint8_t* to, __m256i bytes) {
  if (kStream) {
    _mm256_stream_si256(reinterpret_cast<__m256i*>(to), bytes);
  } else {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(to), bytes);
  }
}

template <bool kStream>
__attribute__((target("avx2"))) void sol_fp8_kernel(const std::uint16_t* input, std::size_t elements, std::uint8_t* data,
                                             std::uint8_t* scale) {
  // Per 32 elements: two loads, the high byte of each element (shift, pack), one 32-byte store
  // and one scale byte. The pack interleaves 128-bit lanes; the order of SoL bytes is
  // irrelevant.
  for (std::size_t i = 0; i < elements; i += 2 * kVectorElements) {
    const __m256i low = _mm256_srli_epi16(load(input + i), kByteBits);
    const __m256i high = _mm256_srli_epi16(load(input + i + kVectorElements), kByteBits);
    const __m256i bytes = _mm256_packus_epi16(low, high);
    store<kStream>(data + i, bytes);
    scale[i / kScaleGroup] = static_cast<std::uint8_t>(_mm_cvtsi128_si32(_mm256_castsi256_si128(bytes)));
  }
  if (kStream) _mm_sfence();
}

template <bool kStream>
__attribute__((target("avx2"))) void sol_fp4_kernel(const std::uint16_t* input, std::size_t elements, std::uint8_t* data,
                                             std::uint8_t* scale) {
  // Per 64 elements: four loads; each pair of elements becomes one byte from their top
  // nibbles; three packs narrow 32 -> 16 -> 8 bits; one 32-byte store and two scale bytes.
  for (std::size_t i = 0; i < elements; i += 4 * kVectorElements) {
    const __m256i words0 = _mm256_packus_epi32(top_nibbles_of_pairs(load(input + i)),
                                               top_nibbles_of_pairs(load(input + i + kVectorElements)));
    const __m256i words1 = _mm256_packus_epi32(top_nibbles_of_pairs(load(input + i + 2 * kVectorElements)),
                                               top_nibbles_of_pairs(load(input + i + 3 * kVectorElements)));
    const __m256i bytes = _mm256_packus_epi16(words0, words1);
    store<kStream>(data + i / 2, bytes);
    const auto two_scales = static_cast<std::uint16_t>(_mm_cvtsi128_si32(_mm256_castsi256_si128(bytes)));
    std::memcpy(scale + i / kScaleGroup, &two_scales, sizeof two_scales);
  }
  if (kStream) _mm_sfence();
}

}  // namespace

void sol_fp8(const std::uint16_t* input, std::size_t elements, std::uint8_t* data, std::uint8_t* scale) {
  sol_fp8_kernel<false>(input, elements, data, scale);
}
void sol_fp8_streaming(const std::uint16_t* input, std::size_t elements, std::uint8_t* data, std::uint8_t* scale) {
  sol_fp8_kernel<true>(input, elements, data, scale);
}
void sol_fp4(const std::uint16_t* input, std::size_t elements, std::uint8_t* data, std::uint8_t* scale) {
  sol_fp4_kernel<false>(input, elements, data, scale);
}
void sol_fp4_streaming(const std::uint16_t* input, std::size_t elements, std::uint8_t* data, std::uint8_t* scale) {
  sol_fp4_kernel<true>(input, elements, data, scale);
}

__attribute__((target("avx2"))) void copy_non_temporal(const void* source, void* destination,
                                                       std::size_t bytes) {
  // Four aligned loads and four streaming stores per 128 bytes; the stores bypass the caches
  // (no read-for-ownership of the destination). The sfence orders them before any later store.
  constexpr std::size_t kUnroll = 4;
  const auto* from = static_cast<const __m256i*>(source);
  auto* to = static_cast<__m256i*>(destination);
  const std::size_t vectors = bytes / kVectorBytes / kUnroll * kUnroll;
  for (std::size_t v = 0; v < vectors; v += kUnroll) {
    const __m256i v0 = _mm256_load_si256(from + v);
    const __m256i v1 = _mm256_load_si256(from + v + 1);
    const __m256i v2 = _mm256_load_si256(from + v + 2);
    const __m256i v3 = _mm256_load_si256(from + v + 3);
    _mm256_stream_si256(to + v, v0);
    _mm256_stream_si256(to + v + 1, v1);
    _mm256_stream_si256(to + v + 2, v2);
    _mm256_stream_si256(to + v + 3, v3);
  }
  _mm_sfence();
  const std::size_t done = vectors * kVectorBytes;
  std::memcpy(static_cast<char*>(destination) + done, static_cast<const char*>(source) + done, bytes - done);
}

}  // namespace mxconform::bench::avx2
