#pragma once
// Included before impl/avx512_backend.cpp when it is built as the avx512-simde test plug-in
// (tests/backends/CMakeLists.txt): the AVX-512 intrinsics the kernel calls, by their Intel names,
// from SIMDe (Debian's libsimde-dev), which implements them on AVX2 and plain C++. The kernel's
// source is unchanged; what it proves on a CPU without AVX-512 is the kernel's logic (its lane
// formulas, masks, shuffles and store order), not how a real AVX-512 unit runs it.
//
// GCC's own <immintrin.h> comes first: SIMDe then takes GCC's vector types as its own, and its
// aliases (macros of the Intel names) shadow GCC's AVX-512 functions, which need the target.

// GCC 12's AVX-512 headers trip -Wmaybe-uninitialized (impl/avx512_backend.cpp says why).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>

#include <cstdint>
#include <cstring>

// SIMDe 0.7.4 defines the alias of _mm512_madd_epi16 with the four parameters of the masked form.
#undef _mm512_madd_epi16
#define _mm512_madd_epi16(a, b) simde_mm512_madd_epi16(a, b)

// The intrinsics the kernel uses that SIMDe 0.7.4 does not have, lane by lane from Intel's
// definitions: nothing here is fast, and nothing needs to be.
namespace mxconform_simde {

template <class To, class From>
To lanes_as(const From& from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

template <class Lane, std::size_t kCount>
struct Lanes {
  Lane lane[kCount];
};

// vpcmp{eq,gt,lt}{w,uw} into a mask: bit i is the comparison of 16-bit lane i.
template <class Lane, class Compare>
std::uint32_t compare16(__m512i a, __m512i b, Compare compare) {
  const auto x = lanes_as<Lanes<Lane, 32>>(a);
  const auto y = lanes_as<Lanes<Lane, 32>>(b);
  std::uint32_t mask = 0;
  for (int i = 0; i < 32; ++i) mask |= static_cast<std::uint32_t>(compare(x.lane[i], y.lane[i]) ? 1 : 0) << i;
  return mask;
}

// vpmovdw: the low 16 bits of each 32-bit lane.
inline __m256i cvtepi32_epi16(__m512i a) {
  const auto in = lanes_as<Lanes<std::uint32_t, 16>>(a);
  Lanes<std::uint16_t, 16> out;
  for (int i = 0; i < 16; ++i) out.lane[i] = static_cast<std::uint16_t>(in.lane[i]);
  return lanes_as<__m256i>(out);
}

// vpmovqb: the low byte of each 64-bit lane, in the low 8 bytes; the high 8 bytes zero.
inline __m128i cvtepi64_epi8(__m512i a) {
  const auto in = lanes_as<Lanes<std::uint64_t, 8>>(a);
  Lanes<std::uint8_t, 16> out{};
  for (int i = 0; i < 8; ++i) out.lane[i] = static_cast<std::uint8_t>(in.lane[i]);
  return lanes_as<__m128i>(out);
}

// vmovntdq: an ordinary store (the bytes are what is checked), with the instruction's rule that
// the address is 64-byte aligned, which the hardware enforces by a fault.
inline void stream_si512(void* p, __m512i a) {
  if (reinterpret_cast<std::uintptr_t>(p) % 64 != 0) __builtin_trap();
  std::memcpy(p, &a, sizeof a);
}

// vcvtph2ps on 16 halves: F16C on each 8 (exact, as every half is an fp32).
inline __m512 cvtph_ps(__m256i a) {
  struct {
    __m256 low, high;
  } out{_mm256_cvtph_ps(_mm256_castsi256_si128(a)), _mm256_cvtph_ps(_mm256_extracti128_si256(a, 1))};
  return lanes_as<__m512>(out);
}

}  // namespace mxconform_simde

#define _mm512_cmpeq_epi16_mask(a, b) \
  mxconform_simde::compare16<std::int16_t>(a, b, [](std::int16_t x, std::int16_t y) { return x == y; })
#define _mm512_cmpgt_epi16_mask(a, b) \
  mxconform_simde::compare16<std::int16_t>(a, b, [](std::int16_t x, std::int16_t y) { return x > y; })
#define _mm512_cmplt_epi16_mask(a, b) \
  mxconform_simde::compare16<std::int16_t>(a, b, [](std::int16_t x, std::int16_t y) { return x < y; })
#define _mm512_cmplt_epu16_mask(a, b) \
  mxconform_simde::compare16<std::uint16_t>(a, b, [](std::uint16_t x, std::uint16_t y) { return x < y; })
#define _mm512_cvtepi32_epi16(a) mxconform_simde::cvtepi32_epi16(a)
#define _mm512_cvtepi64_epi8(a) mxconform_simde::cvtepi64_epi8(a)
#define _mm512_cvtph_ps(a) mxconform_simde::cvtph_ps(a)
#define _mm512_stream_si512(p, a) mxconform_simde::stream_si512(p, a)
