// The AVX-512 implementation. Every function that uses AVX-512 instructions carries the target
// attribute below; nothing in this file is compiled with a global -mavx512*, so the portable code
// that the header functions inline into elsewhere stays portable. Selected at run time
// (registry.cpp) only when CPUID and XCR0 report AVX-512 BW and VL (and F) usable. Only
// AVX-512 F, BW and VL instructions are used: no VBMI, BF16 or FP16 ones, so nothing here needs
// a feature check of its own.
//
// The same source is also built on SIMDe's portable AVX-512 (-DMXCONFORM_AVX512_SIMDE, with
// tests/backends/avx512_simde.h included first) as the avx512-simde test plug-in, so that its
// logic is proven on CPUs without AVX-512; the few #ifdefs below are all that build changes.
//
// The kernel is the AVX2 kernel's (impl/avx2_backend.cpp, whose comments derive the 16-bit lane
// formula and its paths) on 512-bit vectors, 32 elements per vector, with:
// - the same chunk geometry, 8 rows x 64 columns (16 blocks), so every path decision is taken
//   over the same 64-lane row segments as in the AVX2 kernel, the segments the exhaustive
//   element campaign (certify/exhaustive_campaign.h) separates patterns into;
// - each chunk in two halves, measure (steps 1-3) and narrow (steps 4-6, loading the rows again),
//   with ordinary stores the next chunk measured before this one is narrowed (Avx512Chunks);
// - the ties-to-even bit added under a mask (vptestmw) instead of a shift and an and;
// - the FP4 subnormal band decided by two compares into masks and masked maxima;
// - the sign bytes merged by one vpternlog; E8M0 bytes taken from the lanes by vpmovqb.
#include "avx512_backend.h"

// GCC 12's AVX-512 intrinsics build their "undefined" operands by self-initialisation, which
// -Wmaybe-uninitialized reports at every use (GCC bug 105593, fixed in GCC 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <cstring>
#include <type_traits>

#include "block_kernel.h"
#include "e8m0_scale.h"
#include "fp4_pack.h"
#include "mxconform/scale_layout.h"
#include "scalar_backend.h"
#include "chunk_loop.h"
#include "simd_stores.h"
#include "simd_tensor.h"

#ifndef MXCONFORM_AVX512_SIMDE
#define MXCONFORM_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))
// The row and chunk helpers pass vectors (E8M0, rebias, a row's inputs and codes) across calls:
// forced inline, so that they stay in registers.
#define MXCONFORM_AVX512_INLINE __attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) inline
// A kernel's entry point: `flatten` inlines the shared loop (simd::quantize_tensor), which has no
// target attribute of its own, and the chunks it calls.
#define MXCONFORM_AVX512_FLATTEN __attribute__((target("avx512f,avx512bw,avx512vl"), flatten))
#else
// The same source built on SIMDe's AVX-512 (tests/backends/avx512_simde.h is included first):
// no target attributes, and no `flatten`, which would inline every emulated instruction.
#define MXCONFORM_AVX512
#define MXCONFORM_AVX512_INLINE inline
#define MXCONFORM_AVX512_FLATTEN
#endif

namespace mxconform::impl {
namespace {

using simd::ChunkOutput;
using simd::ChunkPath;
using simd::DataStores;
using simd::ElementFormat;
using simd::InputLayout;
using simd::lane16;
using simd::Tensor;

constexpr std::size_t kVectorCols = 32;  // 16-bit elements per 512-bit vector
// A row's columns go in chunks of kWideVectors vectors (64 columns, 16 blocks a chunk); a
// remainder of 32 to 63 columns takes one chunk of kNarrowVectors; fewer than 32 go to the
// scalar block kernel.
constexpr int kWideVectors = 2;
constexpr int kNarrowVectors = 1;
constexpr std::size_t kWideChunkCols = kWideVectors * kVectorCols;
constexpr std::size_t kNarrowChunkCols = kNarrowVectors * kVectorCols;
static_assert(kNarrowChunkCols <= simd::kMaxTailCols, "the scalar tail takes fewer than kNarrowChunkCols columns");
// Software prefetch distance along each of the 8 rows a chunk reads, with kPrefetch (t.prefetch;
// data_stores.h, input_prefetch_for, says on which CPUs).
constexpr std::size_t kPrefetchElements = 4 * kWideChunkCols;
constexpr std::size_t kCacheLineElements = 32;  // 64 bytes of 16-bit inputs



// vpternlog truth tables over (A, B, C) = (0xF0, 0xCC, 0xAA).
constexpr int kTernA = 0xF0, kTernB = 0xCC, kTernC = 0xAA;
constexpr int kAOrBAndC = kTernA | (kTernB & kTernC);

// A vector constant the compiler keeps in a register: left to itself, GCC rebuilds broadcast
// constants inside the row loops.
MXCONFORM_AVX512_INLINE __m512i opaque(__m512i value) {
#ifndef MXCONFORM_AVX512_SIMDE  // SIMDe's vectors live in memory or AVX2 registers: no "v" operand
  __asm__("" : "+v"(value));
#endif
  return value;
}

MXCONFORM_AVX512_INLINE __m512i load32(const std::uint16_t* p) { return _mm512_loadu_si512(p); }

// The fp32 narrow of the contract, step 5, sixteen lanes at a time: AVX2's VectorNarrow
// (avx2_backend.cpp derives it) on 512-bit vectors. Used for blocks holding Inf or NaN and rows
// with a subnormal input; exhaustive_element_test checks it on every reachable pair.
template <class Format>
struct VectorNarrow {
  using C = simd::Fp32NarrowConstants<Format>;

  // Codes of sixteen magnitudes (sign clear, no NaN).
  MXCONFORM_AVX512_INLINE static __m512i magnitude(__m512 y) {
    const __m512i exponent = _mm512_max_epi32(
        _mm512_and_si512(_mm512_castps_si512(y), _mm512_set1_epi32(static_cast<int>(Float32::kExponentMask))),
        _mm512_set1_epi32(C::kMinNormalBits));
    const __m512i magic = _mm512_add_epi32(exponent, _mm512_set1_epi32(C::kMagicOffset));
    const __m512i sum = _mm512_castps_si512(_mm512_add_ps(y, _mm512_castsi512_ps(magic)));
    const __m512i multiple = _mm512_sub_epi32(sum, magic);
    const __m512i binade = _mm512_sub_epi32(_mm512_srli_epi32(exponent, C::kShift), _mm512_set1_epi32(C::kCodeRebias));
    return _mm512_min_epu32(_mm512_add_epi32(multiple, binade), _mm512_set1_epi32(static_cast<int>(Format::kMaxCode)));
  }

  // Codes of sixteen signed values that may be NaN: NaN lanes become `nan_code` and every lane
  // takes the sign of its y (the default NaN of Inf * 0 included).
  MXCONFORM_AVX512_INLINE static __m512i full(__m512 y, __m512i nan_code) {
    const __m512i sign_mask = _mm512_set1_epi32(static_cast<int>(Float32::kSignMask));
    const __m512i bits = _mm512_castps_si512(y);
    const __m512i magnitude_bits = _mm512_andnot_si512(sign_mask, bits);
    __m512i code = magnitude(_mm512_castsi512_ps(magnitude_bits));
    const __mmask16 is_nan = _mm512_cmpgt_epi32_mask(magnitude_bits, _mm512_set1_epi32(static_cast<int>(Float32::kInfCode)));
    code = _mm512_mask_blend_epi32(is_nan, code, nan_code);
    return _mm512_or_si512(code, _mm512_srli_epi32(_mm512_and_si512(bits, sign_mask), Float32::kBits - Format::kBits));
  }
};

// The fast narrow of finite blocks, 32 inputs per vector in their own 16-bit lanes: AVX2's
// LaneNarrow16 (avx2_backend.cpp derives t = a + D, the bands and the clean and general paths),
// taking the inputs' magnitude bits a. Its lane results equal LaneNarrow16's lane for lane.
template <InputDtype kInput, class Format>
class LaneNarrow32 : public simd::LaneConstants<kInput, Format> {
 public:
  using L = simd::LaneConstants<kInput, Format>;

  // D + L::kHalfLessOne per lane, from each lane's E8M0.
  MXCONFORM_AVX512_INLINE static __m512i rebias(__m512i e8m0) {
    return _mm512_sub_epi16(_mm512_set1_epi16(lane16(L::kRebias)), _mm512_slli_epi16(e8m0, L::kInputMantissa));
  }

  MXCONFORM_AVX512 LaneNarrow32()
      : magnitude_mask_(opaque(_mm512_set1_epi16(lane16(Bfloat16::kMagnitudeMask)))),
        one_(opaque(_mm512_set1_epi16(1))),
        two_(opaque(_mm512_set1_epi16(2))),
        max_code_(opaque(_mm512_set1_epi16(lane16(Format::kMaxCode)))),
        window_start_(opaque(_mm512_set1_epi16(lane16(L::kWindowStart)))),
        above_quarter_(opaque(_mm512_set1_epi16(lane16(-L::kNormal + L::kHalfLessOne)))),
        half_up_(opaque(_mm512_set1_epi16(lane16(L::kNormal / 2 - 1 + L::kHalfLessOne)))),
        max_code_bytes_(opaque(_mm512_set1_epi8(static_cast<char>(Format::kMaxCode)))),
        sign_bytes_(opaque(_mm512_set1_epi8(static_cast<char>(Format::kSignMask)))) {}

  // The magnitude bits of 32 inputs.
  MXCONFORM_AVX512_INLINE __m512i magnitude(__m512i v) const { return _mm512_and_si512(v, magnitude_mask_); }

  // The FP8 subnormal band is tested on the rounded sum r = t + kHalfLessOne + lsb rather than on
  // t, so that t is dead once r exists and the masked add needs no copy of it: t in [K, 2^mi) gives
  // (r - kWindowStart) mod 2^16 in [0, kWindowWidth], so a window one wider flags every band lane.
  // It also flags lanes with t = K - 1 (y below half the smallest subnormal: 0, which
  // with_subnormal_band gives too) and t = 2^mi (normal: with_subnormal_band leaves it).
  static constexpr int kRoundedWindowWidth = L::kWindowWidth + 1;
  static_assert(kRoundedWindowWidth < (1 << 16));

  // Codes of 32 inputs with magnitude bits `magnitude`, whose lanes' D + L::kHalfLessOne are
  // `rebiased`, sign left out: FP4 codes in [0, 7]; FP8 codes still to be clamped to [0, max
  // code]. FP8: `window` gets each lane's distance into the subnormal band window (below
  // kRoundedWindowWidth: the formula cannot decide the lane). General path: `input_window` gets
  // magnitude - 1 (below L::kNormal - 1: a subnormal input).
  template <bool kGeneral>
  MXCONFORM_AVX512_INLINE __m512i codes(__m512i magnitude, __m512i rebiased, __m512i& window, __m512i& input_window) const {
    // Ties to even: the lsb of the kept bits is bit L::kShift of a (D's low mi bits are zero).
    const __mmask32 odd = _mm512_test_epi16_mask(magnitude, _mm512_set1_epi16(lane16(1 << L::kShift)));
    // r = t + L::kHalfLessOne + lsb, written as (a + rebiased) with (a + rebiased + 1) merged in
    // under the mask: the merge source is read once, so GCC writes r over it instead of copying
    // it first (rebiased + 1 is the same for the chunk's 8 rows and computed once).
    const __m512i t = _mm512_add_epi16(magnitude, rebiased);  // t + L::kHalfLessOne
    const __m512i rounded = _mm512_mask_add_epi16(t, odd, magnitude, _mm512_add_epi16(rebiased, one_));
    __m512i code = _mm512_srai_epi16(rounded, L::kShift);
    if (L::kFp4) {
      // The subnormal band (LaneNarrow16::codes): lanes with y <= 0.25 give 0 (the formula is
      // negative there), y > 0.25 at least code 1, y >= 0.75 at least code 2. Both bounds read
      // the same on r as on t: the lsb is 0 at t = -2^mi and at t = 2^mi / 2 - 1.
      const __mmask32 above_quarter = _mm512_cmpgt_epi16_mask(rounded, above_quarter_);
      const __mmask32 half_up = _mm512_cmpgt_epi16_mask(rounded, half_up_);
      code = _mm512_maskz_max_epi16(above_quarter, _mm512_min_epi16(code, max_code_), one_);
      code = _mm512_mask_max_epi16(code, half_up, code, two_);
    } else {
      window = _mm512_sub_epi16(rounded, window_start_);
    }
    if (kGeneral) {
      code = _mm512_min_epi16(code, magnitude);  // zeros: 0; every normal input exceeds every code
      input_window = _mm512_sub_epi16(magnitude, one_);
    }
    return code;
  }

  // FP8: 64 codes (two vectors of 16-bit lanes; with kClamp any int16 value, clamped here to
  // [0, max code]) and their inputs' signs -> 64 bytes in column order.
  template <bool kClamp>
  MXCONFORM_AVX512_INLINE __m512i fp8_bytes(__m512i in0, __m512i in1, __m512i codes0, __m512i codes1) const {
    __m512i magnitudes = _mm512_packus_epi16(codes0, codes1);  // saturates to [0, 255]
    if (kClamp) magnitudes = _mm512_min_epu8(magnitudes, max_code_bytes_);
    // The sign bit of each input lands on bit 7 of its signed-saturated byte.
    const __m512i signs = _mm512_packs_epi16(in0, in1);
    const __m512i merged = _mm512_ternarylogic_epi32(magnitudes, signs, sign_bytes_, kAOrBAndC);
    // The packs interleave the vectors by 128-bit lanes: 64-bit units 0 2 4 6 are codes0's.
    return _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7), merged);
  }

  // True when a row's `windows` (from codes()) name a lane in the FP8 subnormal band.
  template <int kVectors>
  MXCONFORM_AVX512_INLINE static bool in_subnormal_band(const __m512i (&windows)[kVectors]) {
    if (L::kFp4) return false;
    return _mm512_cmplt_epu16_mask(lowest(windows), _mm512_set1_epi16(lane16(kRoundedWindowWidth))) != 0;
  }

  // True when a row's `input_windows` (general path) name a subnormal input.
  template <int kVectors>
  MXCONFORM_AVX512_INLINE static bool has_subnormal_input(const __m512i (&input_windows)[kVectors]) {
    return _mm512_cmplt_epu16_mask(lowest(input_windows), _mm512_set1_epi16(lane16(L::kNormal - 1))) != 0;
  }

  // FP8: `code` with the lanes below the element's normal band recomputed in the fixed subnormal
  // spacing (LaneNarrow16::with_subnormal_band derives it): a table lookup and a 16-bit multiply.
  template <bool kGeneral>
  MXCONFORM_AVX512_INLINE static __m512i with_subnormal_band(__m512i magnitude, __m512i rebiased, __m512i code) {
    static_assert(!L::kFp4, "FP4 decides its subnormal band in codes()");
    constexpr int kSignificandShift = L::kInputMantissa + 1;
    constexpr int kIndexOffset = Format::kMantissaBits + 2;  // table index E + m + 2
    // t afresh (opaque: were it shared with codes()'s t, that t would stay live across the row and
    // every row's rounding would copy it).
    const __m512i t = _mm512_add_epi16(magnitude, opaque(rebiased));  // t + L::kHalfLessOne
    const __m512i scales = _mm512_broadcast_i32x4(
        _mm_setr_epi8(0, 0, 1 << 0, 1 << 1, 1 << 2, Format::kMantissaBits >= 3 ? 1 << 3 : 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    const __m512i index = _mm512_max_epi16(
        _mm512_srai_epi16(_mm512_add_epi16(t, _mm512_set1_epi16(lane16((kIndexOffset << L::kInputMantissa) - L::kHalfLessOne))),
                          L::kInputMantissa),
        _mm512_setzero_si512());
    const __m512i significand = _mm512_or_si512(_mm512_and_si512(magnitude, _mm512_set1_epi16(lane16(L::kNormal - 1))),
                                                _mm512_set1_epi16(lane16(L::kNormal)));
    const __m512i scaled = _mm512_mullo_epi16(significand, _mm512_shuffle_epi8(scales, index));
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi16(scaled, kSignificandShift), _mm512_set1_epi16(1));
    const __m512i half_less_one = _mm512_set1_epi16(lane16((1 << (kSignificandShift - 1)) - 1));
    const __m512i subnormal = _mm512_srli_epi16(_mm512_add_epi16(_mm512_add_epi16(scaled, half_less_one), lsb), kSignificandShift);
    const __mmask32 below_normal = _mm512_cmpgt_epi16_mask(_mm512_set1_epi16(lane16(L::kNormal + L::kHalfLessOne)), t);
    code = _mm512_mask_blend_epi16(below_normal, code, subnormal);
    return kGeneral ? _mm512_min_epi16(code, magnitude) : code;
  }

 private:
  template <int kVectors>
  MXCONFORM_AVX512_INLINE static __m512i lowest(const __m512i (&lanes)[kVectors]) {
    static_assert(kVectors == 1 || kVectors == 2);
    return kVectors == 1 ? lanes[0] : _mm512_min_epu16(lanes[0], lanes[kVectors - 1]);
  }

  __m512i magnitude_mask_;
  __m512i one_;
  __m512i two_;
  __m512i max_code_;
  __m512i window_start_;   // FP8
  __m512i above_quarter_;  // FP4: t + L::kHalfLessOne above this is y > 0.25
  __m512i half_up_;        // FP4: t + L::kHalfLessOne above this is y >= 0.75
  __m512i max_code_bytes_;
  __m512i sign_bytes_;
};

// simd::quantize_tensor's `Chunks` (chunk_loop.h): chunk() writes a chunk's data bytes to `out`
// (defined below).
template <InputDtype kInput, class Format>
class BandRows;

// Steps 1-3 of a chunk (Avx512Chunks::measure): each lane's E8M0 and the path its rows take.
template <int kVectors>
struct Measured {
  __m512i e8m0[kVectors];
  ChunkPath path;
};

struct Avx512Chunks {
  // FP8 rows that need the subnormal band are redone in batches at streaming sizes (BandRows);
  // every other row is finished in its chunk.
  template <InputDtype kInput, ElementKind kElement, DataStores kStores>
  using Deferred = std::conditional_t<kElement != ElementKind::kFp4E2m1 && kStores == DataStores::kStreaming,
                                      BandRows<kInput, typename ElementFormat<kElement>::Type>, simd::NoDeferredWork>;
  template <InputDtype kInput, class Format>
  using Lanes = LaneNarrow32<kInput, Format>;
  // With ordinary stores (L2-resident sizes) the wide chunks of a row of chunks are measured one
  // ahead of their narrow (chunk_loop.h, kMeasuresAhead): the next chunk's loads and its chain of
  // maxima are issued before this chunk's narrow, whose work would otherwise fill the schedulers
  // while it waits for its own E8M0 and hold the next chunk's loads back. Measured on AMD family
  // 0x1A (Zen 5): 5-7 % faster at 256 KiB, but 5-10 % slower at 64 MiB with streaming stores,
  // where the chunks go one at a time (README.md, "Performance").
  static constexpr bool kMeasuresAhead = true;
  template <InputDtype kInput, ElementKind kElement, bool kPrefetch, bool kWide>
  static Measured<kWide ? kWideVectors : kNarrowVectors> measure(const Tensor& t, const Lanes<kInput, typename ElementFormat<kElement>::Type>& lanes,
                                         std::size_t g, std::size_t col, std::size_t scale_row, int bias);
  template <InputDtype kInput, ElementKind kElement, int kHighParity, bool kStream, bool kWide, class Rows>
  static void narrow(const Tensor& t, const Lanes<kInput, typename ElementFormat<kElement>::Type>& lanes, Rows& deferred,
                     const Measured<kWide ? kWideVectors : kNarrowVectors>& measured, std::size_t g, std::size_t col, ChunkOutput out);
  template <InputDtype kInput, ElementKind kElement, int kHighParity, bool kStream, bool kPrefetch, bool kWide, class Rows>
  static void chunk(const Tensor& t, const Lanes<kInput, typename ElementFormat<kElement>::Type>& lanes, Rows& deferred,
                    std::size_t g, std::size_t col, std::size_t scale_row, int bias, ChunkOutput out) {
    narrow<kInput, kElement, kHighParity, kStream, kWide>(
        t, lanes, deferred, measure<kInput, kElement, kPrefetch, kWide>(t, lanes, g, col, scale_row, bias), g, col, out);
  }
};

// 32 input elements as two fp32 vectors: `lo` holds columns 8L..8L+3 in 128-bit lane L, `hi`
// columns 8L+4..8L+7 (the order _mm512_unpacklo/hi_epi16 give and _mm512_packus_epi32 undoes).
template <InputDtype kInput>
MXCONFORM_AVX512_INLINE void widen32(__m512i v, __m512& lo, __m512& hi) {
  if (kInput == InputDtype::kBfloat16) {
    lo = _mm512_castsi512_ps(_mm512_unpacklo_epi16(_mm512_setzero_si512(), v));
    hi = _mm512_castsi512_ps(_mm512_unpackhi_epi16(_mm512_setzero_si512(), v));
  } else {
    // The widening conversion is exact (float16 subnormals become fp32 normals). 64-bit units
    // 0 2 4 6 hold columns 8L..8L+3, units 1 3 5 7 columns 8L+4..8L+7.
    const __m512i reordered = _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7), v);
    lo = _mm512_cvtph_ps(_mm512_castsi512_si256(reordered));
    hi = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(reordered, 1));
  }
}

// Codes of 32 inputs by the fp32 path: y = x * M (the contract, step 4) and VectorNarrow.
// `e8m0` holds each lane's E8M0. With `special`, `v` holds the inputs, the codes carry y's sign
// and NaN follows the policy (`nan_code`); otherwise `v` holds magnitude bits and the codes are
// magnitude codes.
template <InputDtype kInput, class Format>
MXCONFORM_AVX512_INLINE __m512i fp32_codes(__m512i v, __m512i e8m0, bool special, __m512i nan_code) {
  using Narrow = VectorNarrow<Format>;
  const __m512i zero = _mm512_setzero_si512();
  const __m512i multiplier_base = _mm512_set1_epi32(2 * Float32::kBias);
  const __m512 m_lo = _mm512_castsi512_ps(
      _mm512_slli_epi32(_mm512_sub_epi32(multiplier_base, _mm512_unpacklo_epi16(e8m0, zero)), Float32::kMantissaBits));
  const __m512 m_hi = _mm512_castsi512_ps(
      _mm512_slli_epi32(_mm512_sub_epi32(multiplier_base, _mm512_unpackhi_epi16(e8m0, zero)), Float32::kMantissaBits));
  __m512 lo, hi;
  widen32<kInput>(v, lo, hi);
  if (special) {
    return _mm512_packus_epi32(Narrow::full(_mm512_mul_ps(lo, m_lo), nan_code),
                               Narrow::full(_mm512_mul_ps(hi, m_hi), nan_code));
  }
  return _mm512_packus_epi32(Narrow::magnitude(_mm512_mul_ps(lo, m_lo)), Narrow::magnitude(_mm512_mul_ps(hi, m_hi)));
}

// Each lane's block maximum: the largest of the four lanes of its 64-bit unit (one block's four
// columns in one row), in all four.
MXCONFORM_AVX512_INLINE __m512i spread_group_max(__m512i running) {
  running = _mm512_max_epu16(running, _mm512_rol_epi64(running, 16));
  return _mm512_max_epu16(running, _mm512_rol_epi64(running, 32));
}

// The fp32 exponent field of each lane's magnitude bits (step 2); monotone in the bits for both
// input dtypes, so the field of the block maximum is the block's measure.
template <InputDtype kInput>
MXCONFORM_AVX512_INLINE __m512i fp32_fields(__m512i magnitudes) {
  if (kInput == InputDtype::kBfloat16) return _mm512_srli_epi16(magnitudes, Bfloat16::kMantissaBits);
  // float16: widen exactly (subnormals become normals) and read the fp32 field.
  const __m512i lo = _mm512_srli_epi32(_mm512_castps_si512(_mm512_cvtph_ps(_mm512_castsi512_si256(magnitudes))),
                                       Float32::kMantissaBits);
  const __m512i hi = _mm512_srli_epi32(_mm512_castps_si512(_mm512_cvtph_ps(_mm512_extracti64x4_epi64(magnitudes, 1))),
                                       Float32::kMantissaBits);
  return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi32_epi16(lo)), _mm512_cvtepi32_epi16(hi), 1);
}


template <bool kStream>
MXCONFORM_AVX512_INLINE void store_bytes(void* to, __m512i bytes) {
  if (kStream) {
    _mm512_stream_si512(static_cast<__m512i*>(to), bytes);
  } else {
    _mm512_storeu_si512(to, bytes);
  }
}

using simd::store_bytes;  // the 256- and 128-bit ones

// FP8: one row of a chunk, 32 * kVectors codes and their inputs -> bytes.
template <bool kClamp, bool kStream, int kVectors, class Lanes>
MXCONFORM_AVX512_INLINE void store_fp8_row(const Lanes& lanes, const __m512i (&in)[kVectors], const __m512i (&codes)[kVectors],
                                           std::uint8_t* out) {
  if constexpr (kVectors == 2) {
    store_bytes<kStream>(out, lanes.template fp8_bytes<kClamp>(in[0], in[1], codes[0], codes[1]));
  } else {
    store_bytes<kStream>(out, _mm512_castsi512_si256(lanes.template fp8_bytes<kClamp>(in[0], in[0], codes[0], codes[0])));
  }
}

// FP4: one row of a chunk, 32 * kVectors codes in [0, 7] and their inputs' signs -> nibbles
// (stride 0; kHighParity as in step 6).
template <int kHighParity, bool kStream, int kVectors>
MXCONFORM_AVX512_INLINE void store_fp4_row(const __m512i (&in)[kVectors], const __m512i (&codes)[kVectors], std::uint8_t* out) {
  using Format = E2M1;
  // Element pairs (2j, 2j + 1) as u32 lanes -> one byte of two nibbles by a multiply-add.
  constexpr int kNibble = 1 << Format::kBits;
  const __m512i weights = _mm512_set1_epi32(kHighParity == 1 ? (kNibble << 16 | 1) : (1 << 16 | kNibble));
  constexpr int kSignShift = Bfloat16::kBits - Format::kBits;
  const __m512i sign_bit = _mm512_set1_epi16(lane16(Format::kSignMask));
  __m512i pairs[kVectors];
  #pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) {
    const __m512i signed_codes = _mm512_ternarylogic_epi32(codes[v], _mm512_srli_epi16(in[v], kSignShift), sign_bit, kAOrBAndC);
    pairs[v] = _mm512_madd_epi16(signed_codes, weights);  // u32: one byte each
  }
  // After the two packs, 128-bit lane L holds in its 32-bit units 0 and 1 the bytes of pairs[0]
  // and pairs[1 % kVectors] for that lane.
  const __m512i words = _mm512_packus_epi32(pairs[0], pairs[1 % kVectors]);
  const __m512i bytes = _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 0, 0, 0, 0, 0, 0, 0, 0),
                                                 _mm512_packus_epi16(words, words));
  if constexpr (kVectors == 2) {
    store_bytes<kStream>(out, _mm512_castsi512_si256(bytes));
  } else {
    store_bytes<kStream>(out, _mm512_castsi512_si128(bytes));
  }
}


// FP8 at streaming sizes: the rows of wide chunks that hold a lane in the subnormal band, redone
// in batches of kChunks chunks instead of each in its chunk, as the AVX2 kernel's BandRows
// (avx2_backend.cpp says why: a branch on each such row mispredicts about as often as it is
// taken, and at streaming sizes also discards the loads issued past it). Each row is stored as
// computed; a row that needs the band notes itself without a branch, and finish() recomputes the
// noted rows from their input, still in L1 or L2, and stores them again. Measured on AMD family
// 0x1A (README.md, "Performance").
// Preconditions (those of Subject::quantize): input and output do not overlap.
struct BandRowsRebiased {
  __m512i v[kWideVectors];
};

template <InputDtype kInput, class Format>
class BandRows : public simd::BandRowList<BandRowsRebiased> {
 public:
  using Lanes = LaneNarrow32<kInput, Format>;
  using simd::BandRowList<BandRowsRebiased>::BandRowList;

  MXCONFORM_AVX512_INLINE void end_chunk(const Lanes& lanes, int count, const std::uint16_t* in, std::uint8_t* out,
                                         const __m512i (&rebiased)[kWideVectors]) {
    BandRowsRebiased& noted = this->note_chunk(count, in, out);
    #pragma GCC unroll 8
    for (int v = 0; v < kWideVectors; ++v) noted.v[v] = rebiased[v];
    if (this->close_chunk()) finish(lanes);
  }

  // The noted rows, by the general path's lanes (right for clean chunks too: their zeros and
  // subnormal inputs are below the subnormal band either way) and the band.
  MXCONFORM_AVX512 void finish(const Lanes& lanes) {
    for (int i = 0; i < this->count(); ++i) {
      const auto row = this->noted_row(i);
      __m512i in[kWideVectors];
      __m512i codes[kWideVectors];
      #pragma GCC unroll 8
      for (int v = 0; v < kWideVectors; ++v) {
        in[v] = load32(row.in + kVectorCols * v);
        const __m512i magnitude = lanes.magnitude(in[v]);
        __m512i window, input_window;
        const __m512i lane_codes = lanes.template codes<true>(magnitude, row.rebiased.v[v], window, input_window);
        codes[v] = Lanes::template with_subnormal_band<true>(magnitude, row.rebiased.v[v], lane_codes);
      }
      store_fp8_row<true, true>(lanes, in, codes, row.out);
    }
    this->clear();
  }
};

// Steps 4-6 for the 8 rows of a chunk, FP8, from the rows (loaded again) and their E8M0. The rare
// row with a lane the 16-bit formula cannot decide is recomputed before it is stored.
template <InputDtype kInput, ElementKind kElement, bool kStream, int kVectors, ChunkPath kPath, class Deferred>
MXCONFORM_AVX512_INLINE void narrow_rows_fp8(const Tensor& t, const LaneNarrow32<kInput, typename ElementFormat<kElement>::Type>& lanes,
                                             Deferred& deferred, const std::uint16_t* row, ChunkOutput out,
                                             const __m512i (&e8m0)[kVectors]) {
  using Format = typename ElementFormat<kElement>::Type;
  using Lanes = LaneNarrow32<kInput, Format>;
  constexpr bool kGeneral = kPath == ChunkPath::kGeneral;
  // Rows that need the band are left to `deferred` (BandRows says why).
  constexpr bool kDefer = Deferred::kDefers && kVectors == kWideVectors && kPath != ChunkPath::kSpecial;
  const std::uint16_t* const first_row = row;
  std::uint8_t* slots = nullptr;
  int count = 0;
  int first_slot = 0;
  if constexpr (kDefer) {
    slots = deferred.slots();
    count = deferred.count();
    first_slot = deferred.first_slot();
  }
  const __m512i nan_code = _mm512_set1_epi32(t.nan_code);
  __m512i rebiased[kVectors];
  #pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) rebiased[v] = Lanes::rebias(e8m0[v]);
  std::uint8_t* out_row = out.data;
  #pragma GCC unroll 8
  for (std::size_t r = 0; r < kBlockRows; ++r, row += t.free, out_row += out.stride) {
    __m512i in[kVectors];
    __m512i codes[kVectors];
    if constexpr (kPath == ChunkPath::kSpecial) {
      #pragma GCC unroll 8
      for (int v = 0; v < kVectors; ++v) {
        in[v] = load32(row + kVectorCols * v);
        codes[v] = fp32_codes<kInput, Format>(in[v], e8m0[v], true, nan_code);
      }
      store_fp8_row<false, kStream>(lanes, in, codes, out_row);
      continue;
    }
    __m512i magnitudes[kVectors];
    __m512i windows[kVectors];
    __m512i input_windows[kVectors];
    #pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) {
      in[v] = load32(row + kVectorCols * v);
      magnitudes[v] = lanes.magnitude(in[v]);
      codes[v] = lanes.template codes<kGeneral>(magnitudes[v], rebiased[v], windows[v], input_windows[v]);
    }
    if (kGeneral && Lanes::has_subnormal_input(input_windows)) {
      #pragma GCC unroll 8
      for (int v = 0; v < kVectors; ++v) codes[v] = fp32_codes<kInput, Format>(magnitudes[v], e8m0[v], false, nan_code);
    } else if constexpr (kDefer) {
      slots[count] = static_cast<std::uint8_t>(first_slot + static_cast<int>(r));
      count += Lanes::in_subnormal_band(windows) ? 1 : 0;
    } else if (Lanes::in_subnormal_band(windows)) {
      #pragma GCC unroll 8
      for (int v = 0; v < kVectors; ++v) codes[v] = Lanes::template with_subnormal_band<kGeneral>(magnitudes[v], rebiased[v], codes[v]);
    }
    store_fp8_row<true, kStream>(lanes, in, codes, out_row);
  }
  if constexpr (kDefer) deferred.end_chunk(lanes, count, first_row, out.data, rebiased);
}

// Steps 4-6 for the 8 rows of a chunk, FP4 (its subnormal band is decided in the lanes).
template <InputDtype kInput, int kHighParity, bool kStream, int kVectors, ChunkPath kPath>
MXCONFORM_AVX512_INLINE void narrow_rows_fp4(const Tensor& t, const LaneNarrow32<kInput, E2M1>& lanes, const std::uint16_t* row,
                                             ChunkOutput out, const __m512i (&e8m0)[kVectors]) {
  using Format = E2M1;
  using Lanes = LaneNarrow32<kInput, Format>;
  constexpr bool kGeneral = kPath == ChunkPath::kGeneral;
  const __m512i nan_code = _mm512_set1_epi32(t.nan_code);
  __m512i rebiased[kVectors];
  #pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) rebiased[v] = Lanes::rebias(e8m0[v]);
  std::uint8_t* out_row = out.data;
  #pragma GCC unroll 8
  for (std::size_t r = 0; r < kBlockRows; ++r, row += t.free, out_row += out.stride) {
    __m512i in[kVectors];
    __m512i codes[kVectors];
    #pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) in[v] = load32(row + kVectorCols * v);
    if constexpr (kPath == ChunkPath::kSpecial) {
      #pragma GCC unroll 8
      for (int v = 0; v < kVectors; ++v) codes[v] = fp32_codes<kInput, Format>(in[v], e8m0[v], true, nan_code);
    } else {
      __m512i magnitudes[kVectors];
      __m512i windows[kVectors];  // FP4 decides its band in the lanes: unused
      __m512i input_windows[kVectors];
      #pragma GCC unroll 8
      for (int v = 0; v < kVectors; ++v) {
        magnitudes[v] = lanes.magnitude(in[v]);
        codes[v] = lanes.template codes<kGeneral>(magnitudes[v], rebiased[v], windows[v], input_windows[v]);
      }
      if (kGeneral && Lanes::has_subnormal_input(input_windows)) {
        #pragma GCC unroll 8
        for (int v = 0; v < kVectors; ++v) codes[v] = fp32_codes<kInput, Format>(magnitudes[v], e8m0[v], false, nan_code);
      }
    }
    store_fp4_row<kHighParity, kStream>(in, codes, out_row);
  }
}

// Steps 1-3 of one chunk: partition group g, columns [col, col + 32 * kVectors), 8 * kVectors
// blocks. Stores the blocks' E8M0 bytes and returns each lane's E8M0 and the chunk's path.
template <InputDtype kInput, ElementKind kElement, bool kPrefetch, bool kWide>
MXCONFORM_AVX512 Measured<kWide ? kWideVectors : kNarrowVectors> Avx512Chunks::measure(const Tensor& t,
                                                              const Lanes<kInput, typename ElementFormat<kElement>::Type>& lanes,
                                                              std::size_t g, std::size_t col, std::size_t scale_row, int bias) {
  constexpr int kVectors = kWide ? kWideVectors : kNarrowVectors;
  using Format = typename ElementFormat<kElement>::Type;
  using ChunkLanes = Lanes<kInput, Format>;
  const std::uint16_t* base = t.input + g * kBlockRows * t.free + col;

  // Steps 1-2: the magnitudes' maxima over the 8 rows, then over each block's 4 columns (the
  // narrow loads the rows again). Float16 also tracks the smallest magnitude: a chunk without
  // zeros and subnormal inputs takes the clean path whatever its scales.
  constexpr bool kTrackSmallest = kInput == InputDtype::kFloat16;
  __m512i maxima[kVectors];
  __m512i smallest = _mm512_set1_epi16(-1);
  #pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) maxima[v] = _mm512_setzero_si512();
  #pragma GCC unroll 8
  for (std::size_t r = 0; r < kBlockRows; ++r) {
    const std::uint16_t* row = base + r * t.free;
    if (kPrefetch) {
      #pragma GCC unroll 8
      for (int line = 0; line < kVectors; ++line) {
        _mm_prefetch(reinterpret_cast<const char*>(row + kPrefetchElements + kCacheLineElements * line), _MM_HINT_T0);
      }
    }
    #pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) {
      const __m512i magnitude = lanes.magnitude(load32(row + kVectorCols * v));
      maxima[v] = _mm512_max_epu16(maxima[v], magnitude);
      if (kTrackSmallest) smallest = _mm512_min_epu16(smallest, magnitude);
    }
  }
  // Step 3, per lane: each lane holds its block's E8M0; vpmovqb takes one lane per block.
  Measured<kVectors> measured;
  __m128i scales[kVectors];
  __mmask32 special = 0, low_scale = 0;
  const __m512i min_clean_field = _mm512_set1_epi16(lane16(ChunkLanes::kMinE8m0 + bias));
  #pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) {
    const __m512i fields = fp32_fields<kInput>(spread_group_max(maxima[v]));
    special |= _mm512_cmpeq_epi16_mask(fields, _mm512_set1_epi16(lane16(Float32::kExponentFieldMax)));
    low_scale |= _mm512_cmplt_epi16_mask(fields, min_clean_field);
    measured.e8m0[v] = _mm512_max_epi16(_mm512_sub_epi16(fields, _mm512_set1_epi16(lane16(bias))), _mm512_set1_epi16(1));
    scales[v] = _mm512_cvtepi64_epi8(measured.e8m0[v]);
  }
  std::uint8_t* scale_out = t.scale + scale_row * t.scale_cols + col / kBlockCols;
  if constexpr (kVectors == 2) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(scale_out), _mm_unpacklo_epi64(scales[0], scales[1 % kVectors]));
  } else {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(scale_out), scales[0]);
  }
  // Clean: E8M0 >= kMinE8m0 for every block, or (float16) every input normal.
  bool clean = low_scale == 0;
  if (kTrackSmallest && !clean) clean = _mm512_cmplt_epu16_mask(smallest, _mm512_set1_epi16(lane16(ChunkLanes::kNormal))) == 0;
  measured.path = special != 0 ? ChunkPath::kSpecial : clean ? ChunkPath::kClean : ChunkPath::kGeneral;
  return measured;
}

// Steps 4-6 of the chunk `measured` describes: its data bytes to `out`.
template <InputDtype kInput, ElementKind kElement, int kHighParity, bool kStream, bool kWide, class Rows>
MXCONFORM_AVX512 void Avx512Chunks::narrow(const Tensor& t, const Lanes<kInput, typename ElementFormat<kElement>::Type>& lanes,
                                           Rows& deferred, const Measured<kWide ? kWideVectors : kNarrowVectors>& measured, std::size_t g, std::size_t col,
                                           ChunkOutput out) {
  constexpr int kVectors = kWide ? kWideVectors : kNarrowVectors;
  const std::uint16_t* base = t.input + g * kBlockRows * t.free + col;
  if constexpr (kElement == ElementKind::kFp4E2m1) {
    switch (measured.path) {
      case ChunkPath::kSpecial:
        return narrow_rows_fp4<kInput, kHighParity, kStream, kVectors, ChunkPath::kSpecial>(t, lanes, base, out, measured.e8m0);
      case ChunkPath::kClean:
        return narrow_rows_fp4<kInput, kHighParity, kStream, kVectors, ChunkPath::kClean>(t, lanes, base, out, measured.e8m0);
      case ChunkPath::kGeneral:
        return narrow_rows_fp4<kInput, kHighParity, kStream, kVectors, ChunkPath::kGeneral>(t, lanes, base, out, measured.e8m0);
    }
  } else {
    switch (measured.path) {
      case ChunkPath::kSpecial:
        return narrow_rows_fp8<kInput, kElement, kStream, kVectors, ChunkPath::kSpecial>(t, lanes, deferred, base, out, measured.e8m0);
      case ChunkPath::kClean:
        return narrow_rows_fp8<kInput, kElement, kStream, kVectors, ChunkPath::kClean>(t, lanes, deferred, base, out, measured.e8m0);
      case ChunkPath::kGeneral:
        return narrow_rows_fp8<kInput, kElement, kStream, kVectors, ChunkPath::kGeneral>(t, lanes, deferred, base, out, measured.e8m0);
    }
  }
}

// The entry point: its target attribute and `flatten` bring the shared loop and the chunks into
// one function.
template <InputDtype kInput, ElementKind kElement, int kHighParity, DataStores kStores>
MXCONFORM_AVX512_FLATTEN void quantize_tensor(const QuantizeConfig& config, const Tensor& t) {
  simd::quantize_tensor<Avx512Chunks, LaneNarrow32, kWideChunkCols, kNarrowChunkCols, kInput, kElement, kHighParity, kStores>(config, t);
}

// The kernel instantiations, for simd::select_kernel.
struct Avx512Kernels {
  template <InputDtype kInput, ElementKind kElement, int kHighParity, DataStores kStores>
  static constexpr simd::TensorKernel kernel = quantize_tensor<kInput, kElement, kHighParity, kStores>;
};


// The lane remap of step 6 on stride-0 packed bytes: each window of `stride` bytes reversed, 64
// bytes per shuffle for strides that divide 16.
MXCONFORM_AVX512 void reverse_windows_avx512(std::uint8_t* data, std::size_t size, std::size_t stride) {
  constexpr std::size_t kLaneBytes = 16;
  constexpr std::size_t kVectorBytes = 64;
  std::size_t done = 0;
  if (stride == 2 || stride == 4 || stride == 8 || stride == 16) {
    alignas(kLaneBytes) std::uint8_t order[kLaneBytes];
    for (std::size_t i = 0; i < kLaneBytes; ++i) order[i] = static_cast<std::uint8_t>((i / stride) * stride + (stride - 1 - i % stride));
    const __m512i shuffle = _mm512_broadcast_i32x4(_mm_load_si128(reinterpret_cast<const __m128i*>(order)));
    for (; done + kVectorBytes <= size; done += kVectorBytes) {
      _mm512_storeu_si512(data + done, _mm512_shuffle_epi8(_mm512_loadu_si512(data + done), shuffle));
    }
  }
  reverse_byte_windows(data + done, size - done, stride);
}

// What simd::Backend needs of this file.
struct Avx512Kernel {
#ifndef MXCONFORM_AVX512_SIMDE
  static constexpr std::string_view kName = "avx512";
  static constexpr std::string_view kDescription =
      "AVX-512 BW/VL: 8x64 chunks narrowed in 16-bit lanes held in registers, fp32 path for specials, streaming stores; "
      "dequantize via scalar";
#else
  static constexpr std::string_view kName = "avx512-simde";
  static constexpr std::string_view kDescription =
      "the avx512 kernel's source on SIMDe's AVX-512 (built for AVX2 + F16C): its logic, not its speed; "
      "dequantize via scalar";
#endif
  using Kernels = Avx512Kernels;
  static CpuFeatures required_features() {
    CpuFeatures needed;
#ifndef MXCONFORM_AVX512_SIMDE
    needed.avx512bw = needed.avx512vl = true;
#else
    needed.avx2 = needed.f16c = true;
#endif
    return needed;
  }
  static constexpr auto& reverse_windows = reverse_windows_avx512;
};

}  // namespace

#ifndef MXCONFORM_AVX512_SIMDE
const Subject& avx512_backend() {
#else
const Subject& avx512_simde_backend() {
#endif
  static const simd::Backend<Avx512Kernel> kBackend;
  return kBackend;
}

}  // namespace mxconform::impl
