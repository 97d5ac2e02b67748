// The AVX2 implementation. Every function that uses AVX2, F16C or FMA instructions carries the
// target attribute below; nothing in this file is compiled with a global -mavx2, so the portable
// code that the header functions inline into elsewhere stays portable. Selected at run time
// (registry.cpp) only when CPUID reports the features.
#include "avx2_backend.h"

#include <immintrin.h>

#include <algorithm>
#include <type_traits>
#include <cstring>
#include <vector>

#include "block_kernel.h"
#include "e8m0_scale.h"
#include "fp4_pack.h"
#include "mxconform/scale_layout.h"
#include "scalar_backend.h"
#include "chunk_loop.h"
#include "simd_stores.h"
#include "simd_tensor.h"
#include "widen.h"

#define MXCONFORM_AVX2 __attribute__((target("avx2,f16c,fma,bmi2")))
// A kernel's entry point: `flatten` inlines the shared loop (simd::quantize_tensor), which has no
// target attribute of its own, and the chunks it calls.
#define MXCONFORM_AVX2_FLATTEN __attribute__((target("avx2,f16c,fma,bmi2"), flatten))

namespace mxconform::impl {
namespace {

using simd::ChunkOutput;
using simd::ChunkPath;
using simd::DataStores;
using simd::ElementFormat;
using simd::InputLayout;
using simd::lane16;
using simd::Tensor;

constexpr std::size_t kVectorCols = 16;  // 16-bit elements per 256-bit vector
// A row's columns go in chunks of kWideVectors vectors (64 columns, 16 blocks a chunk); a
// remainder of 32 to 63 columns takes one chunk of kNarrowVectors; fewer than 32 go to the
// scalar block kernel.
constexpr int kWideVectors = 4;
constexpr int kNarrowVectors = 2;
constexpr std::size_t kWideChunkCols = kWideVectors * kVectorCols;
constexpr std::size_t kNarrowChunkCols = kNarrowVectors * kVectorCols;
static_assert(kNarrowChunkCols <= simd::kMaxTailCols, "the scalar tail takes fewer than kNarrowChunkCols columns");
// Software prefetch distance along each of the 8 rows a chunk reads, with kPrefetch (t.prefetch;
// data_stores.h, input_prefetch_for, says on which CPUs). Prefetching past a row's end is
// harmless.
constexpr std::size_t kPrefetchElements = 4 * kWideChunkCols;


// The vector narrow of docs/contract.md step 5, for one element format.
//
// Let E be |y|'s exponent, clamped below to the element's smallest normal exponent, and
// C = 2^(E + 23 - m), whose ulp is the grid spacing 2^(E - m) at |y| (the subnormal spacing in
// the subnormal band). The fp32 sum s = |y| + C rounds |y| to a multiple k of that spacing,
// to nearest with ties to the even multiple, which is the even code, and k = bits(s) - bits(C)
// exactly. The element code is then ((E + bias - 1) << m) + k: in the normal band k counts the
// implicit one, in the subnormal band (E + bias - 1 = 0) it is the code itself, and a k that
// carries to 2^(m+1) lands on the next binade's first code. Codes above the largest finite one
// saturate. Integer work only besides the one add, so no fp32 denormal is ever produced (they
// are slow on x86).
//
// Domain: every |y| = |x| * M a block can produce has |y| < 2^(emax + 2), so C stays finite;
// Inf gives Inf and saturates. exhaustive_element_test checks every reachable (input pattern,
// E8M0) pair against the oracle.
template <class Format>
struct VectorNarrow {
  using C = simd::Fp32NarrowConstants<Format>;

  // Codes of eight magnitudes (sign clear, no NaN).
  MXCONFORM_AVX2 static __m256i magnitude(__m256 y) {
    const __m256i exponent = _mm256_max_epi32(
        _mm256_and_si256(_mm256_castps_si256(y), _mm256_set1_epi32(static_cast<int>(Float32::kExponentMask))),
        _mm256_set1_epi32(C::kMinNormalBits));
    const __m256i magic = _mm256_add_epi32(exponent, _mm256_set1_epi32(C::kMagicOffset));
    const __m256i sum = _mm256_castps_si256(_mm256_add_ps(y, _mm256_castsi256_ps(magic)));
    const __m256i multiple = _mm256_sub_epi32(sum, magic);  // k
    const __m256i binade = _mm256_sub_epi32(_mm256_srli_epi32(exponent, C::kShift), _mm256_set1_epi32(C::kCodeRebias));
    return _mm256_min_epu32(_mm256_add_epi32(multiple, binade), _mm256_set1_epi32(static_cast<int>(Format::kMaxCode)));
  }

  // Codes of eight signed values that may be NaN: NaN lanes become `nan_code` and every lane
  // takes the sign of its y (the default NaN of Inf * 0 included).
  MXCONFORM_AVX2 static __m256i full(__m256 y, __m256i nan_code) {
    const __m256i sign_mask = _mm256_set1_epi32(static_cast<int>(Float32::kSignMask));
    const __m256i bits = _mm256_castps_si256(y);
    const __m256i magnitude_bits = _mm256_andnot_si256(sign_mask, bits);
    __m256i code = magnitude(_mm256_castsi256_ps(magnitude_bits));
    const __m256i is_nan = _mm256_cmpgt_epi32(magnitude_bits, _mm256_set1_epi32(static_cast<int>(Float32::kInfCode)));
    code = _mm256_blendv_epi8(code, nan_code, is_nan);
    return _mm256_or_si256(code, _mm256_srli_epi32(_mm256_and_si256(bits, sign_mask), Float32::kBits - Format::kBits));
  }
};


// A vector constant the compiler keeps in a register or a stack slot: left to itself, GCC
// rebuilds broadcast constants from immediates inside the row loops (three instructions each).
MXCONFORM_AVX2 inline __m256i opaque(__m256i value) {
  __asm__("" : "+x"(value));
  return value;
}

// The fast narrow of finite blocks, sixteen inputs per vector in their own 16-bit lanes.
//
// M = 2^d is a power of two, so y = |x| * M is |x| with its exponent moved by d. Let mi be the
// input's mantissa width and Bi its bias. For a normal x, t = a + D with a = |x|'s bits and
// D = (d + B - Bi) << mi is y's bits rebiased to the element's bias B:
// t = (e_y + B) * 2^mi + mantissa, where e_y is y's unbiased exponent. Then:
// - t >= 2^mi (the element's normal band): the code is t shifted right by s = mi - m, rounded
//   to nearest with ties to even; a carry moves to the next binade; above max it saturates.
//   D's low mi bits are zero, so the lsb that breaks ties is bit s of a itself.
// - t < K = -m * 2^mi: y < 2^(e_y + 1) <= 2^(-B - m), half the smallest subnormal or less: 0.
//   The shifted value is negative there; the byte pack (FP8) or the band select (FP4) makes 0.
// - K <= t < 2^mi: y is in the element's subnormal band. FP4 has two binades there, decided
//   in place: t in [0, 2^mi) is y in [0.5, 1) -> 1, or 2 when its mantissa is at least half;
//   t in (-2^mi, 0) is y in (0.25, 0.5) -> 1; t = -2^mi is y = 0.25, a tie -> 0. For FP8 the
//   formula gives such a lane a code below 2^m (below_normal_codes finds it on the packed
//   bytes) and its row is recomputed by with_subnormal_band(), before it is stored (at
//   streaming sizes: stored again in a batch, BandRows).
// Zeros and inputs that are not normal do not follow the formula for t. When every block of a
// chunk has E8M0 >= kMinE8m0, D <= -(m + 1) * 2^mi puts every such lane below K (the "clean"
// path). Otherwise (the "general" path) zeros are forced to code 0 and subnormal inputs are
// flagged. D is computed modulo 2^16: it may not fit for a block of float16 subnormals, but t
// does for every normal input (t lies between D and the block maximum's t), and every other
// lane is forced or flagged.
// exhaustive_element_test checks every reachable (input pattern, E8M0) pair against the oracle.
template <InputDtype kInput, class Format>
class LaneNarrow16 : public simd::LaneConstants<kInput, Format> {
 public:
  using L = simd::LaneConstants<kInput, Format>;

  // D + L::kHalfLessOne per lane, from each lane's E8M0.
  MXCONFORM_AVX2 __m256i rebias(__m256i e8m0) const {
    return _mm256_sub_epi16(rebias_base_, _mm256_slli_epi16(e8m0, L::kInputMantissa));
  }

  MXCONFORM_AVX2 LaneNarrow16()
      : magnitude_mask_(opaque(_mm256_set1_epi16(lane16(Bfloat16::kMagnitudeMask)))),
        one_(opaque(_mm256_set1_epi16(1))),
        rebias_base_(opaque(_mm256_set1_epi16(lane16(L::kRebias)))),
        field_max_(opaque(_mm256_set1_epi16(lane16(Float32::kExponentFieldMax)))),
        normal_(opaque(_mm256_set1_epi16(lane16(L::kNormal + L::kHalfLessOne)))),
        implicit_one_(opaque(_mm256_set1_epi16(lane16(L::kNormal)))),
        mantissa_mask_(opaque(_mm256_set1_epi16(lane16(L::kNormal - 1)))),
        index_offset_(opaque(_mm256_set1_epi16(lane16(((Format::kMantissaBits + 2) << L::kInputMantissa) - L::kHalfLessOne)))),
        above_quarter_(opaque(_mm256_set1_epi16(lane16(-L::kNormal + L::kHalfLessOne)))),
        half_up_(opaque(_mm256_set1_epi16(lane16(L::kNormal / 2 - 1 + L::kHalfLessOne)))),
        max_code_bytes_(opaque(_mm256_set1_epi8(static_cast<char>(Format::kMaxCode)))),
        normal_code_bytes_(opaque(_mm256_set1_epi8(static_cast<char>(1 << Format::kMantissaBits)))),
        sign_bytes_(opaque(_mm256_set1_epi8(static_cast<char>(Format::kSignMask)))) {}

  // 1 in every lane.
  MXCONFORM_AVX2 __m256i one() const { return one_; }
  // True when a lane of `fields` is the fp32 exponent field of Inf and NaN.
  MXCONFORM_AVX2 bool any_special(__m256i fields) const {
    return _mm256_movemask_epi8(_mm256_cmpeq_epi16(fields, field_max_)) != 0;
  }

  // The magnitude bits of sixteen inputs.
  MXCONFORM_AVX2 __m256i magnitude(__m256i v) const { return _mm256_and_si256(v, magnitude_mask_); }

  // Codes of sixteen inputs `v` whose lanes' D + L::kHalfLessOne are `rebiased`, with the sign left
  // out, still to be clamped to [0, max code] (code_bytes does, on bytes).
  // The general path lowers `input_flags` below L::kNormal - 1 for a subnormal input.
  template <bool kGeneral>
  MXCONFORM_AVX2 __m256i codes(__m256i v, __m256i rebiased, __m256i& input_flags) const {
    const __m256i magnitude = _mm256_and_si256(v, magnitude_mask_);
    const __m256i t = _mm256_add_epi16(magnitude, rebiased);  // t + L::kHalfLessOne
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi16(v, L::kShift), one_);
    __m256i code = _mm256_srai_epi16(_mm256_add_epi16(t, lsb), L::kShift);
    if (L::kFp4) {
      // The band's code, 0, 1 or 2, is at least the formula's there (at most 0 below t = 0, and
      // RNE(t / 2^s) of at most 1 or 2 above), and at most 2, the smallest normal code: so the
      // larger of the two is right in every lane (and stays so once clamped to the max code).
      const __m256i above_quarter = _mm256_cmpgt_epi16(t, above_quarter_);
      const __m256i half_up = _mm256_cmpgt_epi16(t, half_up_);
      const __m256i subnormal = _mm256_sub_epi16(_mm256_sub_epi16(_mm256_setzero_si256(), above_quarter), half_up);
      code = _mm256_max_epi16(code, subnormal);
    }
    if (kGeneral) {
      code = _mm256_min_epi16(code, magnitude);  // zeros: 0; every normal input exceeds every code
      input_flags = _mm256_min_epu16(input_flags, _mm256_sub_epi16(magnitude, one_));
    }
    return code;
  }

  // 32 codes (two vectors of u16 lanes; with kClamp any int16 value, clamped here to
  // [0, max code]) -> 32 code bytes without their signs, in _mm256_packus_epi16's lane order
  // (which keeps each pair of columns (2j, 2j + 1) in adjacent bytes).
  template <bool kClamp>
  MXCONFORM_AVX2 __m256i code_bytes(__m256i codes0, __m256i codes1) const {
    const __m256i magnitudes = _mm256_packus_epi16(codes0, codes1);  // saturates to [0, 255]
    return kClamp ? _mm256_min_epu8(magnitudes, max_code_bytes_) : magnitudes;
  }

  // FP8: code_bytes' bytes and their 32 inputs' signs -> 32 bytes in column order.
  MXCONFORM_AVX2 __m256i fp8_bytes(__m256i in0, __m256i in1, __m256i magnitudes) const {
    // The sign bit of each input lands on bit 7 of its signed-saturated byte.
    const __m256i signs = _mm256_and_si256(_mm256_packs_epi16(in0, in1), sign_bytes_);
    return _mm256_permute4x64_epi64(_mm256_or_si256(magnitudes, signs), 0b11'01'10'00);
  }

  // FP4: code_bytes' bytes and their 32 inputs' signs -> 32 signed codes as bytes, in
  // code_bytes' order.
  MXCONFORM_AVX2 __m256i fp4_bytes(__m256i in0, __m256i in1, __m256i magnitudes) const {
    // Bit 7 of each signed-saturated byte is its input's sign; a 16-bit shift by 4 takes both
    // bytes' to bit 3, and the mask drops what crossed from the high byte.
    const __m256i signs = _mm256_and_si256(_mm256_srli_epi16(_mm256_packs_epi16(in0, in1), 4), sign_bytes_);
    return _mm256_or_si256(magnitudes, signs);
  }

  // FP8: false when no code of a row's code_bytes is below 2^m, the smallest normal code.
  // The formula gives a code below 2^m exactly where t < 2^mi (y below the normal band), except
  // at the band's top, where it rounds up to 2^m as the band's own rounding does. True also for
  // a row whose low lanes are below the subnormal band (t < K, code 0 already right).
  template <int kPairs>
  MXCONFORM_AVX2 bool below_normal_codes(const __m256i (&magnitudes)[kPairs]) const {
    static_assert(!L::kFp4);
    __m256i smallest = magnitudes[0];
    #pragma GCC unroll 8
    for (int p = 1; p < kPairs; ++p) smallest = _mm256_min_epu8(smallest, magnitudes[p]);
    const __m256i below = _mm256_subs_epu8(normal_code_bytes_, smallest);
    return !_mm256_testz_si256(below, below);
  }

  // True when a row's `input_flags` name a subnormal input (general path only).
  MXCONFORM_AVX2 static bool has_subnormal_input(__m256i input_flags) {
    const __m256i hit = _mm256_subs_epu16(_mm256_set1_epi16(lane16(L::kNormal - 1)), input_flags);
    return !_mm256_testz_si256(hit, hit);
  }

  // FP8: `code` with the lanes below the element's normal band (t < 2^mi) recomputed. In the
  // subnormal band the grid spacing is fixed at q = 2^(1 - B - m): with E = t >> mi in [-m, 0]
  // and the input's significand S = 2^mi + mantissa (t's low mi bits are a's), y / q =
  // S * 2^(E + m) / 2^(mi + 1), rounded to nearest even by a fixed shift once S is scaled by
  // 2^(E + m) (a table lookup and a 16-bit multiply). E = -m - 1 gives y <= q / 2, and lower
  // binades less: the table makes those 0. A carry out of the band gives 2^m, the smallest
  // normal code.
  template <bool kGeneral>
  MXCONFORM_AVX2 __m256i with_subnormal_band(__m256i v, __m256i rebiased, __m256i code) const {
    static_assert(!L::kFp4, "FP4 decides its subnormal band in codes()");
    constexpr int kSignificandShift = L::kInputMantissa + 1;
    const __m256i magnitude = _mm256_and_si256(v, magnitude_mask_);
    const __m256i t = _mm256_add_epi16(magnitude, rebiased);  // t + L::kHalfLessOne
    // Indices 0 and 1 (E = -m - 1 and below, clamped to 0) give 0; so does every high byte.
    const __m256i scales = _mm256_setr_epi8(0, 0, 1 << 0, 1 << 1, 1 << 2, Format::kMantissaBits >= 3 ? 1 << 3 : 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                            0, 0, 1 << 0, 1 << 1, 1 << 2, Format::kMantissaBits >= 3 ? 1 << 3 : 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    // The table index E + m + 2.
    const __m256i index = _mm256_max_epi16(_mm256_srai_epi16(_mm256_add_epi16(t, index_offset_), L::kInputMantissa),
                                           _mm256_setzero_si256());
    const __m256i significand = _mm256_or_si256(_mm256_and_si256(v, mantissa_mask_), implicit_one_);
    const __m256i scaled = _mm256_mullo_epi16(significand, _mm256_shuffle_epi8(scales, index));
    // Rounded to nearest even by the shift: 2^(kSignificandShift - 1) - 1 is the mantissa mask.
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi16(scaled, kSignificandShift), one_);
    const __m256i subnormal = _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16(scaled, mantissa_mask_), lsb), kSignificandShift);
    code = _mm256_blendv_epi8(code, subnormal, _mm256_cmpgt_epi16(normal_, t));
    return kGeneral ? _mm256_min_epi16(code, magnitude) : code;
  }

 private:
  __m256i magnitude_mask_;
  __m256i one_;
  __m256i rebias_base_;
  __m256i field_max_;
  __m256i normal_;          // t + L::kHalfLessOne below this is below the normal band
  __m256i implicit_one_;    // FP8, with_subnormal_band: 2^mi
  __m256i mantissa_mask_;   // 2^mi - 1
  __m256i index_offset_;    // FP8, with_subnormal_band: (m + 2) << mi, less L::kHalfLessOne
  __m256i above_quarter_;   // FP4: t + L::kHalfLessOne above this is y > 0.25
  __m256i half_up_;         // FP4: t + L::kHalfLessOne above this is y >= 0.75
  __m256i max_code_bytes_;
  __m256i normal_code_bytes_;  // FP8: 2^m, the smallest normal code
  __m256i sign_bytes_;      // the sign bit of a code byte (FP4: of its nibble)
};

// FP8 at streaming sizes: the rows of wide chunks that hold a lane below the element's normal
// band, recomputed in batches of kChunks chunks instead of each in its chunk.
//
// Such rows are rare but not predictable (about 12 % of the rows of bench's bfloat16 -> e4m3fn
// input, in 60 % of its chunks), so a branch on each row mispredicts about as often as it is
// taken, and at streaming sizes that also throws away the loads issued past it. Here each row's
// store goes out as computed, and a row that needs the band notes itself without a branch (a
// slot is written and the count moves by 0 or 1); finish() recomputes the noted rows from their
// input, still in L1 or L2, and stores them again: one loop whose trip count is the only branch.
// Measured on AMD family 0x17 (Zen 2), 64 MiB bfloat16 -> e4m3fn, paired runs (README,
// Performance): 5.5 Gelem/s with the branch on each row, 5.7-5.9 with the batches. What is left
// is the second write of each redone line (a build that dropped it ran at 6.6-6.9): staging the
// rows in L1 and streaming them out once fixed was slower (5.0-5.2), and so was one
// non-temporal store to a spare line in place of the first write (3.5); batches of 8 to 256
// chunks, or one redone row per chunk, made no difference. In L2 the branch on each row is
// cheaper than the batch, so ordinary stores keep it.
// Preconditions (those of Subject::quantize): input and output do not overlap.
struct BandRowsRebiased {
  __m256i v[kWideVectors];
};

template <InputDtype kInput, class Format>
class BandRows : public simd::BandRowList<BandRowsRebiased> {
 public:
  using Lanes = LaneNarrow16<kInput, Format>;
  using simd::BandRowList<BandRowsRebiased>::BandRowList;

  MXCONFORM_AVX2 void end_chunk(const Lanes& lanes, int count, const std::uint16_t* in, std::uint8_t* out,
                                const __m256i (&rebiased)[kWideVectors]) {
    BandRowsRebiased& noted = this->note_chunk(count, in, out);
    #pragma GCC unroll 8
    for (int v = 0; v < kWideVectors; ++v) noted.v[v] = rebiased[v];
    if (this->close_chunk()) finish(lanes);
  }

  // The noted rows, by the general path's lanes (right for clean chunks too: their zeros and
  // subnormal inputs are below the subnormal band either way) and the band.
  MXCONFORM_AVX2 void finish(const Lanes& lanes) {
    for (int i = 0; i < this->count(); ++i) {
      const auto row = this->noted_row(i);
      __m256i in[kWideVectors];
      __m256i codes[kWideVectors];
      __m256i input_flags = _mm256_set1_epi16(-1);
      #pragma GCC unroll 8
      for (int v = 0; v < kWideVectors; ++v) {
        in[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row.in + kVectorCols * v));
        const __m256i lane_codes = lanes.template codes<true>(in[v], row.rebiased.v[v], input_flags);
        codes[v] = lanes.template with_subnormal_band<true>(in[v], row.rebiased.v[v], lane_codes);
      }
      #pragma GCC unroll 8
      for (int v = 0; v < kWideVectors; v += 2) {
        const __m256i magnitudes = lanes.template code_bytes<true>(codes[v], codes[v + 1]);
        simd::store_bytes<true>(row.out + kVectorCols * v, lanes.fp8_bytes(in[v], in[v + 1], magnitudes));
      }
    }
    this->clear();
  }
};

// simd::quantize_tensor's `Chunks` (chunk_loop.h): chunk() writes a chunk's data bytes to `out`
// (defined below).
struct Avx2Chunks {
  static constexpr bool kMeasuresAhead = false;  // chunk() alone (chunk_loop.h)
  template <InputDtype kInput, ElementKind kElement, DataStores kStores>
  using Deferred = std::conditional_t<kElement != ElementKind::kFp4E2m1 && kStores == DataStores::kStreaming,
                                      BandRows<kInput, typename ElementFormat<kElement>::Type>, simd::NoDeferredWork>;
  template <InputDtype kInput, ElementKind kElement, int kHighParity, bool kStream, bool kPrefetch, bool kWide, class Rows>
  static void chunk(const Tensor& t, const LaneNarrow16<kInput, typename ElementFormat<kElement>::Type>& lanes, Rows& deferred,
                    std::size_t g, std::size_t col, std::size_t scale_row, int bias, ChunkOutput out);
};

// Sixteen input elements as two fp32 vectors: `lo` holds columns 0-3 and 8-11, `hi` columns 4-7
// and 12-15 (the order _mm256_unpacklo/hi_epi16 give and _mm256_packus_epi32 undoes).
template <InputDtype kInput>
MXCONFORM_AVX2 inline void widen16(__m256i v, __m256& lo, __m256& hi) {
  if (kInput == InputDtype::kBfloat16) {
    lo = _mm256_castsi256_ps(_mm256_unpacklo_epi16(_mm256_setzero_si256(), v));
    hi = _mm256_castsi256_ps(_mm256_unpackhi_epi16(_mm256_setzero_si256(), v));
  } else {
    // F16C widening is exact (float16 subnormals become fp32 normals). Reorder 64-bit units
    // 0 2 1 3 so that the halves hold columns 0-3, 8-11 and 4-7, 12-15.
    const __m256i reordered = _mm256_permute4x64_epi64(v, 0b11'01'10'00);
    lo = _mm256_cvtph_ps(_mm256_castsi256_si128(reordered));
    hi = _mm256_cvtph_ps(_mm256_extracti128_si256(reordered, 1));
  }
}

// Codes of sixteen inputs by the fp32 path: y = x * M (docs/contract.md step 4) and VectorNarrow.
// `e8m0` holds each lane's E8M0. With `special` the codes carry y's sign and NaN follows the
// policy (`nan_code`); otherwise they are magnitude codes of |x| * M.
template <InputDtype kInput, class Format>
MXCONFORM_AVX2 __m256i fp32_codes(__m256i v, __m256i e8m0, bool special, __m256i nan_code) {
  using Narrow = VectorNarrow<Format>;
  const __m256i zero = _mm256_setzero_si256();
  const __m256i multiplier_base = _mm256_set1_epi32(2 * Float32::kBias);
  const __m256 m_lo = _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_sub_epi32(multiplier_base, _mm256_unpacklo_epi16(e8m0, zero)), Float32::kMantissaBits));
  const __m256 m_hi = _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_sub_epi32(multiplier_base, _mm256_unpackhi_epi16(e8m0, zero)), Float32::kMantissaBits));
  __m256 lo, hi;
  if (special) {
    widen16<kInput>(v, lo, hi);
    return _mm256_packus_epi32(Narrow::full(_mm256_mul_ps(lo, m_lo), nan_code),
                               Narrow::full(_mm256_mul_ps(hi, m_hi), nan_code));
  }
  widen16<kInput>(_mm256_and_si256(v, _mm256_set1_epi16(lane16(Bfloat16::kMagnitudeMask))), lo, hi);
  return _mm256_packus_epi32(Narrow::magnitude(_mm256_mul_ps(lo, m_lo)), Narrow::magnitude(_mm256_mul_ps(hi, m_hi)));
}

MXCONFORM_AVX2 inline __m256i load16(const std::uint16_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// Each lane's block maximum: the largest of the four lanes of its 64-bit unit (one block's four
// columns in one row), in all four.
MXCONFORM_AVX2 inline __m256i spread_group_max(__m256i running) {
  const __m256i swap_pairs = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
                                              2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
  running = _mm256_max_epu16(running, _mm256_shuffle_epi8(running, swap_pairs));
  return _mm256_max_epu16(running, _mm256_shuffle_epi32(running, 0b10'11'00'01));
}

// The fp32 exponent field of each lane's magnitude bits (step 2). The field is monotone in the
// bits for both input dtypes, so the field of the block maximum is the block's measure.
template <InputDtype kInput>
MXCONFORM_AVX2 inline __m256i fp32_fields(__m256i magnitudes) {
  if (kInput == InputDtype::kBfloat16) return _mm256_srli_epi16(magnitudes, Bfloat16::kMantissaBits);
  // float16: widen exactly (subnormals become normals) and read the fp32 field.
  const __m256i lo = _mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtph_ps(_mm256_castsi256_si128(magnitudes))),
                                       Float32::kMantissaBits);
  const __m256i hi = _mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtph_ps(_mm256_extracti128_si256(magnitudes, 1))),
                                       Float32::kMantissaBits);
  return _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0b11'01'10'00);
}

// The E8M0 bytes of a chunk's 4 * kVectors blocks, in block order, from lanes holding each
// block's E8M0 (four lanes a block, 16 lanes a vector).
template <int kVectors>
MXCONFORM_AVX2 inline __m128i scale_bytes(const __m256i (&e8m0)[kVectors]) {
  // Per vector: blocks 0, 1 sit in bytes 0 and 8 of the low half, blocks 2, 3 in bytes 0 and 8
  // of the high half. Gather them to bytes 0, 1 and 2, 3 of their halves, shift vector v's by
  // 4v bytes, and merge the halves.
  constexpr char kNone = -1;
  const __m256i gather = _mm256_setr_epi8(0, 8, kNone, kNone, kNone, kNone, kNone, kNone, kNone, kNone, kNone, kNone,
                                          kNone, kNone, kNone, kNone, kNone, kNone, 0, 8, kNone, kNone, kNone, kNone,
                                          kNone, kNone, kNone, kNone, kNone, kNone, kNone, kNone);
  __m256i merged = _mm256_shuffle_epi8(e8m0[0], gather);
  merged = _mm256_or_si256(merged, _mm256_bslli_epi128(_mm256_shuffle_epi8(e8m0[1], gather), 4));
  if (kVectors == 4) {
    merged = _mm256_or_si256(merged, _mm256_bslli_epi128(_mm256_shuffle_epi8(e8m0[2 % kVectors], gather), 8));
    merged = _mm256_or_si256(merged, _mm256_bslli_epi128(_mm256_shuffle_epi8(e8m0[3 % kVectors], gather), 12));
  }
  return _mm_or_si128(_mm256_castsi256_si128(merged), _mm256_extracti128_si256(merged, 1));
}


using simd::store_bytes;

// FP4: one row of a chunk, 16 * kVectors codes (clamped here with kClamp) and their inputs'
// signs -> nibbles (stride 0; kHighParity as in step 6).
template <int kHighParity, bool kStream, bool kClamp, int kVectors, class Lanes>
MXCONFORM_AVX2 inline void store_fp4_row(const Lanes& lanes, const __m256i (&in)[kVectors], const __m256i (&codes)[kVectors],
                                         std::uint8_t* out) {
  // Each pair of signed code bytes (2j, 2j + 1) -> one byte of two nibbles, by a multiply-add.
  constexpr int kNibble = 1 << E2M1::kBits;
  const __m256i weights = _mm256_set1_epi16(lane16(kHighParity == 1 ? (kNibble << 8 | 1) : (1 << 8 | kNibble)));
  __m256i pairs[kVectors / 2];
  #pragma GCC unroll 8
  for (int v = 0; v < kVectors; v += 2) {
    const __m256i magnitudes = lanes.template code_bytes<kClamp>(codes[v], codes[v + 1]);
    pairs[v / 2] = _mm256_maddubs_epi16(lanes.fp4_bytes(in[v], in[v + 1], magnitudes), weights);
  }
  // Within each 128-bit half the bytes hold 4-byte groups of 8 columns in the order 0 2 4 6 | 1 3 5 7.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  if constexpr (kVectors == 4) {
    store_bytes<kStream>(out, _mm256_permutevar8x32_epi32(_mm256_packus_epi16(pairs[0], pairs[1]), order));
  } else {
    const __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(pairs[0], pairs[0]), order);
    store_bytes<kStream>(out, _mm256_castsi256_si128(bytes));
  }
}


// Steps 4-6 for the 8 rows of a chunk, FP8. The rare row with a lane the 16-bit formula cannot
// decide is recomputed before it is stored.
template <InputDtype kInput, ElementKind kElement, bool kStream, int kVectors, ChunkPath kPath, class Deferred>
MXCONFORM_AVX2 inline void narrow_rows_fp8(const Tensor& t, const LaneNarrow16<kInput, typename ElementFormat<kElement>::Type>& lanes,
                                           Deferred& deferred, const std::uint16_t* row, ChunkOutput out,
                                           const __m256i (&e8m0)[kVectors]) {
  using Format = typename ElementFormat<kElement>::Type;
  using Lane16 = LaneNarrow16<kInput, Format>;
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
  const __m256i nan_code = _mm256_set1_epi32(t.nan_code);
  __m256i rebiased[kVectors];
  #pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) rebiased[v] = lanes.rebias(e8m0[v]);
  std::uint8_t* out_row = out.data;
  for (std::size_t r = 0; r < kBlockRows; ++r, row += t.free, out_row += out.stride) {
    if constexpr (kPath == ChunkPath::kSpecial) {
      #pragma GCC unroll 8
      for (int v = 0; v < kVectors; v += 2) {
        const __m256i in0 = load16(row + kVectorCols * v);
        const __m256i in1 = load16(row + kVectorCols * (v + 1));
        const __m256i codes0 = fp32_codes<kInput, Format>(in0, e8m0[v], true, nan_code);
        const __m256i codes1 = fp32_codes<kInput, Format>(in1, e8m0[v + 1], true, nan_code);
        store_bytes<kStream>(out_row + kVectorCols * v, lanes.fp8_bytes(in0, in1, lanes.template code_bytes<false>(codes0, codes1)));
      }
      continue;
    }
    constexpr int kPairs = kVectors / 2;
    __m256i in[kVectors];
    __m256i codes[kVectors];
    __m256i magnitudes[kPairs];
    __m256i input_flags = _mm256_set1_epi16(-1);
    #pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) {
      in[v] = load16(row + kVectorCols * v);
      codes[v] = lanes.template codes<kGeneral>(in[v], rebiased[v], input_flags);
    }
    #pragma GCC unroll 8
    for (int p = 0; p < kPairs; ++p) magnitudes[p] = lanes.template code_bytes<true>(codes[2 * p], codes[2 * p + 1]);
    bool redone = true;
    if (kGeneral && Lane16::has_subnormal_input(input_flags)) {
      #pragma GCC unroll 8
      for (int v = 0; v < kVectors; ++v) codes[v] = fp32_codes<kInput, Format>(in[v], e8m0[v], false, nan_code);
    } else if constexpr (kDefer) {
      slots[count] = static_cast<std::uint8_t>(first_slot + static_cast<int>(r));
      count += lanes.below_normal_codes(magnitudes) ? 1 : 0;
      redone = false;
    } else if (lanes.below_normal_codes(magnitudes)) {
      // Rare. Every vector of the row, without a branch per vector: which vectors hold the
      // lanes below 2^mi is data, and mispredicted branches cost more than the work they skip.
      #pragma GCC unroll 8
      for (int v = 0; v < kVectors; ++v) codes[v] = lanes.template with_subnormal_band<kGeneral>(in[v], rebiased[v], codes[v]);
    } else {
      redone = false;
    }
    if (redone) {
      #pragma GCC unroll 8
      for (int p = 0; p < kPairs; ++p) magnitudes[p] = lanes.template code_bytes<true>(codes[2 * p], codes[2 * p + 1]);
    }
    #pragma GCC unroll 8
    for (int p = 0; p < kPairs; ++p) {
      store_bytes<kStream>(out_row + 2 * kVectorCols * p, lanes.fp8_bytes(in[2 * p], in[2 * p + 1], magnitudes[p]));
    }
  }
  if constexpr (kDefer) deferred.end_chunk(lanes, count, first_row, out.data, rebiased);
}

// Steps 4-6 for the 8 rows of a chunk, FP4 (its subnormal band is decided in the lanes).
template <InputDtype kInput, int kHighParity, bool kStream, int kVectors, ChunkPath kPath>
MXCONFORM_AVX2 inline void narrow_rows_fp4(const Tensor& t, const LaneNarrow16<kInput, E2M1>& lanes,
                                           const std::uint16_t* row, ChunkOutput out, const __m256i (&e8m0)[kVectors]) {
  using Format = E2M1;
  using Lane16 = LaneNarrow16<kInput, Format>;
  constexpr bool kGeneral = kPath == ChunkPath::kGeneral;
  const __m256i nan_code = _mm256_set1_epi32(t.nan_code);
  __m256i rebiased[kVectors];
  #pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) rebiased[v] = lanes.rebias(e8m0[v]);
  std::uint8_t* out_row = out.data;
  for (std::size_t r = 0; r < kBlockRows; ++r, row += t.free, out_row += out.stride) {
    __m256i in[kVectors];
    __m256i codes[kVectors];
    #pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) in[v] = load16(row + kVectorCols * v);
    if constexpr (kPath == ChunkPath::kSpecial) {
      #pragma GCC unroll 8
      for (int v = 0; v < kVectors; ++v) codes[v] = fp32_codes<kInput, Format>(in[v], e8m0[v], true, nan_code);
    } else {
      __m256i input_flags = _mm256_set1_epi16(-1);
      #pragma GCC unroll 8
      for (int v = 0; v < kVectors; ++v) codes[v] = lanes.template codes<kGeneral>(in[v], rebiased[v], input_flags);
      if (kGeneral && Lane16::has_subnormal_input(input_flags)) {
        #pragma GCC unroll 8
        for (int v = 0; v < kVectors; ++v) codes[v] = fp32_codes<kInput, Format>(in[v], e8m0[v], false, nan_code);
      }
    }
    store_fp4_row<kHighParity, kStream, kPath != ChunkPath::kSpecial>(lanes, in, codes, out_row);
  }
}

// One chunk: partition group g, columns [col, col + 16 * kVectors): 4 * kVectors blocks.
// Writes the data bytes and the blocks' E8M0 bytes.
template <InputDtype kInput, ElementKind kElement, int kHighParity, bool kStream, bool kPrefetch, bool kWide, class Rows>
MXCONFORM_AVX2 void Avx2Chunks::chunk(const Tensor& t, const LaneNarrow16<kInput, typename ElementFormat<kElement>::Type>& lanes,
                                      Rows& deferred, std::size_t g, std::size_t col, std::size_t scale_row, int bias,
                                      ChunkOutput out) {
  constexpr int kVectors = kWide ? kWideVectors : kNarrowVectors;
  using Format = typename ElementFormat<kElement>::Type;
  using Lane16 = LaneNarrow16<kInput, Format>;
  constexpr bool kFp4 = kElement == ElementKind::kFp4E2m1;
  const std::uint16_t* base = t.input + g * kBlockRows * t.free + col;

  // Steps 1-2: maxima of magnitude bits over the 8 rows, then over each block's 4 columns.
  // Float16 also tracks the smallest magnitude: a chunk without zeros and subnormal inputs takes
  // the clean path whatever its scales (they are common, so the general path would be too).
  constexpr bool kTrackSmallest = kInput == InputDtype::kFloat16;
  __m256i maxima[kVectors];
  __m256i smallest = _mm256_set1_epi16(-1);
  #pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) maxima[v] = _mm256_setzero_si256();
  #pragma GCC unroll 8
  for (std::size_t r = 0; r < kBlockRows; ++r) {
    const std::uint16_t* row = base + r * t.free;
    if (kPrefetch) {
      #pragma GCC unroll 8
      for (int line = 0; line < (kVectors + 1) / 2; ++line) {
        _mm_prefetch(reinterpret_cast<const char*>(row + kPrefetchElements + 2 * kVectorCols * line), _MM_HINT_T0);
      }
    }
    #pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) {
      const __m256i magnitude = lanes.magnitude(load16(row + kVectorCols * v));
      maxima[v] = _mm256_max_epu16(maxima[v], magnitude);
      if (kTrackSmallest) smallest = _mm256_min_epu16(smallest, magnitude);
    }
  }
  // FP8: left alone, GCC defers the minimum to the branch that reads it and keeps all 32
  // magnitudes on the stack until then (32 stores a chunk). FP4 does not, and is slower with it.
  if (kTrackSmallest && !kFp4) smallest = opaque(smallest);
  // Step 3, per lane: each lane holds its block's E8M0.
  __m256i fields[kVectors];
  __m256i e8m0[kVectors];
  __m256i highest = _mm256_setzero_si256();
  __m256i lowest = _mm256_set1_epi16(-1);
  #pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) {
    fields[v] = fp32_fields<kInput>(spread_group_max(maxima[v]));
    highest = _mm256_max_epu16(highest, fields[v]);
    lowest = _mm256_min_epu16(lowest, fields[v]);
    e8m0[v] = _mm256_max_epi16(_mm256_sub_epi16(fields[v], _mm256_set1_epi16(lane16(bias))), lanes.one());
  }
  const __m128i scales = scale_bytes(e8m0);
  std::uint8_t* scale_out = t.scale + scale_row * t.scale_cols + col / kBlockCols;
  if (kVectors == 4) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(scale_out), scales);
  } else {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(scale_out), scales);
  }
  const bool special = lanes.any_special(highest);
  // Clean: E8M0 >= kMinE8m0 for every block, i.e. field >= kMinE8m0 + bias (kMinE8m0 > 1), or
  // every input normal.
  bool clean = _mm256_movemask_epi8(_mm256_cmpgt_epi16(_mm256_set1_epi16(lane16(Lane16::kMinE8m0 + bias)), lowest)) == 0;
  if (kTrackSmallest && !clean) {
    clean = _mm256_movemask_epi8(_mm256_cmpgt_epi16(_mm256_set1_epi16(lane16(Lane16::kNormal)), smallest)) == 0;
  }
  if constexpr (kFp4) {
    if (special) {
      narrow_rows_fp4<kInput, kHighParity, kStream, kVectors, ChunkPath::kSpecial>(t, lanes, base, out, e8m0);
    } else if (clean) {
      narrow_rows_fp4<kInput, kHighParity, kStream, kVectors, ChunkPath::kClean>(t, lanes, base, out, e8m0);
    } else {
      narrow_rows_fp4<kInput, kHighParity, kStream, kVectors, ChunkPath::kGeneral>(t, lanes, base, out, e8m0);
    }
  } else {
    if (special) {
      narrow_rows_fp8<kInput, kElement, kStream, kVectors, ChunkPath::kSpecial>(t, lanes, deferred, base, out, e8m0);
    } else if (clean) {
      narrow_rows_fp8<kInput, kElement, kStream, kVectors, ChunkPath::kClean>(t, lanes, deferred, base, out, e8m0);
    } else {
      narrow_rows_fp8<kInput, kElement, kStream, kVectors, ChunkPath::kGeneral>(t, lanes, deferred, base, out, e8m0);
    }
  }
}

// The entry point: its target attribute and `flatten` bring the shared loop and the chunks into
// one function.
template <InputDtype kInput, ElementKind kElement, int kHighParity, DataStores kStores>
MXCONFORM_AVX2_FLATTEN void quantize_tensor(const QuantizeConfig& config, const Tensor& t) {
  simd::quantize_tensor<Avx2Chunks, LaneNarrow16, kWideChunkCols, kNarrowChunkCols, kInput, kElement, kHighParity, kStores>(config, t);
}

// The kernel instantiations, for simd::select_kernel.
struct Avx2Kernels {
  template <InputDtype kInput, ElementKind kElement, int kHighParity, DataStores kStores>
  static constexpr simd::TensorKernel kernel = quantize_tensor<kInput, kElement, kHighParity, kStores>;
};


// The lane remap of step 6 on stride-0 packed bytes: each window of `stride` bytes reversed.
MXCONFORM_AVX2 void reverse_windows_avx2(std::uint8_t* data, std::size_t size, std::size_t stride) {
  std::size_t done = 0;
  if (stride == 2 || stride == 4 || stride == 8 || stride == 16) {
    alignas(16) std::uint8_t order[16];
    for (std::size_t i = 0; i < 16; ++i) order[i] = static_cast<std::uint8_t>((i / stride) * stride + (stride - 1 - i % stride));
    const __m128i shuffle = _mm_load_si128(reinterpret_cast<const __m128i*>(order));
    for (; done + 16 <= size; done += 16) {
      __m128i* p = reinterpret_cast<__m128i*>(data + done);
      _mm_storeu_si128(p, _mm_shuffle_epi8(_mm_loadu_si128(p), shuffle));
    }
  }
  reverse_byte_windows(data + done, size - done, stride);
}

// What simd::Backend needs of this file.
struct Avx2Kernel {
  static constexpr std::string_view kName = "avx2";
  static constexpr std::string_view kDescription =
      "AVX2 + F16C: 8x64 chunks narrowed in 16-bit lanes, fp32 path for specials, streaming stores; dequantize via scalar";
  using Kernels = Avx2Kernels;
  static CpuFeatures required_features() {
    CpuFeatures needed;
    needed.avx2 = needed.f16c = needed.fma = needed.bmi2 = true;
    return needed;
  }
  static constexpr auto& reverse_windows = reverse_windows_avx2;
};

}  // namespace

const Subject& avx2_backend() {
  static const simd::Backend<Avx2Kernel> kBackend;
  return kBackend;
}

}  // namespace mxconform::impl
