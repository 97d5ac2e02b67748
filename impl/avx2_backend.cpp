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
#include "widen.h"

#define MXCONFORM_AVX2 __attribute__((target("avx2,f16c,fma,bmi2")))

namespace mxconform::impl {
namespace {

constexpr std::size_t kChunkCols = 32;                        // columns per vector chunk
constexpr std::size_t kChunkBlocks = kChunkCols / kBlockCols;  // 8 blocks
// Software prefetch distance along each of the 8 rows a chunk reads (the hardware prefetchers
// track fewer strided streams well). Prefetching past a row's end is harmless.
constexpr std::size_t kPrefetchElements = 8 * kChunkCols;

template <ElementKind kElement>
struct ElementFormat;
template <>
struct ElementFormat<ElementKind::kFp4E2m1> { using Type = E2M1; };
template <>
struct ElementFormat<ElementKind::kFp8E4m3fn> { using Type = E4M3FN; };
template <>
struct ElementFormat<ElementKind::kFp8E5m2> { using Type = E5M2; };

// The vector narrow of decisions.md step 5, for one element format.
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
  static constexpr int kShift = Float32::kMantissaBits - Format::kMantissaBits;
  static constexpr int kMinNormalBits = (Float32::kBias + Format::kEmin) << Float32::kMantissaBits;
  static constexpr int kMagicOffset = kShift << Float32::kMantissaBits;  // bits(C) - bits(2^E)
  // (E + bias - 1) << m = (bits(2^E) >> shift) - kCodeRebias.
  static constexpr int kCodeRebias = (Float32::kBias + 1 - Format::kBias) << Format::kMantissaBits;

  // Codes of eight magnitudes (sign clear, no NaN).
  MXCONFORM_AVX2 static __m256i magnitude(__m256 y) {
    const __m256i exponent = _mm256_max_epi32(
        _mm256_and_si256(_mm256_castps_si256(y), _mm256_set1_epi32(static_cast<int>(Float32::kExponentMask))),
        _mm256_set1_epi32(kMinNormalBits));
    const __m256i magic = _mm256_add_epi32(exponent, _mm256_set1_epi32(kMagicOffset));
    const __m256i sum = _mm256_castps_si256(_mm256_add_ps(y, _mm256_castsi256_ps(magic)));
    const __m256i multiple = _mm256_sub_epi32(sum, magic);  // k
    const __m256i binade = _mm256_sub_epi32(_mm256_srli_epi32(exponent, kShift), _mm256_set1_epi32(kCodeRebias));
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

// The input format's layout in a 16-bit lane.
template <InputDtype kInput>
struct InputLayout {
  using Format = std::conditional_t<kInput == InputDtype::kBfloat16, Bfloat16, Float16>;
  static constexpr int kMantissaBits = Format::kMantissaBits;
  static constexpr int kBias = Format::kBias;
};

// A faster narrow for finite blocks, on sixteen inputs per vector in their own 16-bit lanes.
//
// M = 2^d is a power of two, so y = |x| * M is |x| with its exponent moved by d (for the lanes
// this path keeps; see below). Let mi be the input's mantissa width and Bi its bias. For a
// normal x, t = a + D with a = |x|'s bits and D = (d + B - Bi) << mi is y's bits rebiased to the
// element's bias B: t = (e_y + B) * 2^mi + mantissa, where e_y is y's unbiased exponent. Then:
// - t >= 2^mi (the element's normal band): the code is t shifted right by (mi - m), rounded to
//   nearest with ties to even; a carry moves to the next binade; above max it saturates.
// - t < K = -m * 2^mi: y < 2^(e_y + 1) <= 2^(-B - m), half the smallest subnormal or less: 0.
// - K <= t < 2^mi: y is in the element's subnormal band. FP4 has two binades there, decided
//   in place: t in [0, 2^mi) is y in [0.5, 1) -> 1, or 2 when its mantissa is at least half;
//   t in (-2^mi, 0) is y in (0.25, 0.5) -> 1; t = -2^mi is y = 0.25, a tie -> 0. For FP8 the
//   lanes are reported in `fallback` and the caller redoes the row with the fp32 path.
// Zeros and inputs that are not normal do not follow the formula for t. For bfloat16 the caller
// uses this path only when every block's E8M0 is at least kMinE8m0, which puts every such lane
// below K (|x| < 2^(1 - Bi) gives y <= 2^(-B - m)). Float16 subnormals are common enough at any
// scale that zeros are masked and subnormal inputs reported in `fallback` instead.
// exhaustive_element_test checks every reachable (input pattern, E8M0) pair against the oracle.
template <InputDtype kInput, class Format>
struct LaneNarrow16 {
  static constexpr int kInputMantissa = InputLayout<kInput>::kMantissaBits;
  static constexpr int kShift = kInputMantissa - Format::kMantissaBits;
  static constexpr int kNormal = 1 << kInputMantissa;               // t at the smallest normal
  static constexpr int kKill = -Format::kMantissaBits * kNormal;     // K
  static constexpr bool kFp4 = std::is_same_v<Format, E2M1>;
  static constexpr bool kMaskZeros = kInput == InputDtype::kFloat16;
  // d + B - Bi <= -(m + 1) for every block, i.e. E8M0 >= 128 - Bi + B + m (bfloat16 only).
  static constexpr int kMinE8m0 = 128 - InputLayout<kInput>::kBias + Format::kBias + Format::kMantissaBits;

  // D = (127 - e8m0 + B - Bi) << mi per block, saturated to 16 bits.
  MXCONFORM_AVX2 static __m256i rebias(__m256i e8m0) {
    const __m256i offset = _mm256_set1_epi32(Float32::kBias + Format::kBias - InputLayout<kInput>::kBias);
    return _mm256_slli_epi32(_mm256_sub_epi32(offset, e8m0), kInputMantissa);
  }

  // Codes (sign included) of sixteen inputs `v` whose blocks' D are `d16` (one per lane).
  MXCONFORM_AVX2 static __m256i codes(__m256i v, __m256i d16, __m256i& fallback) {
    const __m256i magnitude = _mm256_and_si256(v, _mm256_set1_epi16(0x7FFF));
    const __m256i t = _mm256_adds_epi16(magnitude, d16);
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi16(t, kShift), _mm256_set1_epi16(1));
    const __m256i half_less_one = _mm256_set1_epi16(static_cast<short>((1 << (kShift - 1)) - 1));
    __m256i code = _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16(t, half_less_one), lsb), kShift);
    code = _mm256_min_epu16(code, _mm256_set1_epi16(static_cast<short>(Format::kMaxCode)));
    if (kFp4) {
      const __m256i normal = _mm256_cmpgt_epi16(t, _mm256_set1_epi16(kNormal - 1));
      const __m256i above_quarter = _mm256_cmpgt_epi16(t, _mm256_set1_epi16(-kNormal));
      const __m256i half_up = _mm256_cmpgt_epi16(t, _mm256_set1_epi16(kNormal / 2 - 1));
      const __m256i subnormal = _mm256_sub_epi16(_mm256_setzero_si256(), _mm256_add_epi16(above_quarter, half_up));
      code = _mm256_blendv_epi8(subnormal, code, normal);
    } else {
      const __m256i below = _mm256_cmpgt_epi16(_mm256_set1_epi16(kKill), t);
      code = _mm256_andnot_si256(below, code);
      fallback = _mm256_or_si256(fallback, _mm256_andnot_si256(below, _mm256_cmpgt_epi16(_mm256_set1_epi16(kNormal), t)));
    }
    if (kMaskZeros) {
      const __m256i zero = _mm256_cmpeq_epi16(magnitude, _mm256_setzero_si256());
      code = _mm256_andnot_si256(zero, code);
      fallback = _mm256_or_si256(fallback, _mm256_andnot_si256(zero, _mm256_cmpgt_epi16(_mm256_set1_epi16(kNormal), magnitude)));
    }
    constexpr int kSignShift = Bfloat16::kBits - Format::kBits;
    const __m256i sign = _mm256_and_si256(_mm256_srli_epi16(v, kSignShift), _mm256_set1_epi16(static_cast<short>(1u << (Format::kBits - 1))));
    return _mm256_or_si256(code, sign);
  }
};

// Sixteen input elements as two fp32 vectors: `lo` holds columns 0-3 and 8-11, `hi` columns 4-7
// and 12-15 (the order _mm256_packus_epi32 undoes).
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

MXCONFORM_AVX2 inline __m256i load16(const std::uint16_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// The largest magnitude bits (sign cleared) of each 4-column group of 16 elements, in u16 lane 0
// of each 64-bit unit. The fp32 exponent field is monotone in these bits for both input dtypes.
MXCONFORM_AVX2 inline __m256i group_max(__m256i running) {
  running = _mm256_max_epu16(running, _mm256_srli_epi64(running, 16));
  return _mm256_max_epu16(running, _mm256_srli_epi64(running, 32));
}

// The fp32 exponent fields of the 8 blocks of a chunk, from the running maxima of magnitude bits
// of its two 16-column halves (u16 lanes).
template <InputDtype kInput>
MXCONFORM_AVX2 inline __m256i block_fields(__m256i max_a, __m256i max_b) {
  const __m256i low16 = _mm256_set1_epi64x(0xFFFF);
  const __m256i a = _mm256_and_si256(group_max(max_a), low16);  // u64 lanes: blocks 0, 1 | 2, 3
  const __m256i b = _mm256_and_si256(group_max(max_b), low16);  // blocks 4, 5 | 6, 7
  // As u32 lanes the pack is [0, 1, 4, 5 | 2, 3, 6, 7]; reorder to blocks 0..7.
  const __m256i maxima = _mm256_permutevar8x32_epi32(_mm256_packus_epi32(a, b), _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7));
  if (kInput == InputDtype::kBfloat16) return _mm256_srli_epi32(maxima, Bfloat16::kMantissaBits);
  // float16: widen exactly (subnormals become normals) and read the fp32 field.
  const __m256i halves = _mm256_permute4x64_epi64(_mm256_packus_epi32(maxima, maxima), 0b11'01'10'00);
  return _mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtph_ps(_mm256_castsi256_si128(halves))),
                           Float32::kMantissaBits);
}

struct Tensor {
  const std::uint16_t* input;
  std::uint8_t* data;
  std::uint8_t* scale;
  std::size_t free;
  std::size_t scale_cols;
  bool stream;        // non-temporal stores: large output, aligned rows
  int nan_code;       // what a NaN becomes before its sign (FP8 NaN policy)
};

// One chunk: partition group g, columns [col, col + 32). Writes the data bytes and 8 E8M0 bytes.
// kHighParity is the FP4 parity knob (unused for FP8).
template <InputDtype kInput, ElementKind kElement, int kHighParity>
MXCONFORM_AVX2 void quantize_chunk(const Tensor& t, std::size_t g, std::size_t col, std::size_t scale_row, int bias) {
  using Format = typename ElementFormat<kElement>::Type;
  using Narrow = VectorNarrow<Format>;
  constexpr bool kFp4 = kElement == ElementKind::kFp4E2m1;
  const std::size_t stride = t.free;  // elements from one row to the next
  const bool stream = t.stream;
  const std::uint16_t* base = t.input + g * kBlockRows * stride + col;
  const std::size_t out_stride = kFp4 ? stride / 2 : stride;  // bytes from one row to the next
  std::uint8_t* out_row = t.data + (g * kBlockRows * stride + col) / (kFp4 ? 2 : 1);
  const __m256i magnitude_mask = _mm256_set1_epi16(0x7FFF);

  // Steps 1-2: block maxima of magnitude bits over the 8 rows, then within 4-column groups.
  __m256i max_a = _mm256_setzero_si256();
  __m256i max_b = _mm256_setzero_si256();
  for (std::size_t r = 0; r < kBlockRows; ++r) {
    const std::uint16_t* row = base + r * stride;
    _mm_prefetch(reinterpret_cast<const char*>(row + kPrefetchElements), _MM_HINT_T0);
    max_a = _mm256_max_epu16(max_a, _mm256_and_si256(load16(row), magnitude_mask));
    max_b = _mm256_max_epu16(max_b, _mm256_and_si256(load16(row + 16), magnitude_mask));
  }
  // Step 3 for the 8 blocks at once: E8M0, the scale bytes, and the multipliers' bits.
  const __m256i fields = block_fields<kInput>(max_a, max_b);
  const bool special = _mm256_movemask_epi8(_mm256_cmpeq_epi32(
                           fields, _mm256_set1_epi32(static_cast<int>(Float32::kExponentFieldMax)))) != 0;
  const __m256i e8m0 = _mm256_max_epi32(_mm256_sub_epi32(fields, _mm256_set1_epi32(bias)), _mm256_set1_epi32(1));
  const __m256i e8m0_bytes = _mm256_packus_epi16(_mm256_packus_epi32(e8m0, e8m0), _mm256_setzero_si256());
  _mm_storel_epi64(reinterpret_cast<__m128i*>(t.scale + scale_row * t.scale_cols + col / kBlockCols),
                   _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(e8m0_bytes, _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0))));
  const __m256i blocks = _mm256_slli_epi32(_mm256_sub_epi32(_mm256_set1_epi32(2 * Float32::kBias), e8m0),
                                           Float32::kMantissaBits);
  // Multipliers in the lane order of widen16: lo = blocks 0, 2 (of a 16-column half), hi = 1, 3.
  const __m256 m_lo_a = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(blocks, _mm256_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2)));
  const __m256 m_hi_a = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(blocks, _mm256_setr_epi32(1, 1, 1, 1, 3, 3, 3, 3)));
  const __m256 m_lo_b = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(blocks, _mm256_setr_epi32(4, 4, 4, 4, 6, 6, 6, 6)));
  const __m256 m_hi_b = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(blocks, _mm256_setr_epi32(5, 5, 5, 5, 7, 7, 7, 7)));

  // The 16-bit lane path (LaneNarrow16) for finite blocks: D per column lane, blocks 0-3 | 4-7.
  using Lane16 = LaneNarrow16<kInput, Format>;
  bool lanes16 = !special;
  if (kInput == InputDtype::kBfloat16) {
    lanes16 = lanes16 && _mm256_movemask_epi8(_mm256_cmpgt_epi32(_mm256_set1_epi32(Lane16::kMinE8m0), e8m0)) == 0;
  }
  const __m256i d_pairs = _mm256_unpacklo_epi16(_mm256_packs_epi32(Lane16::rebias(e8m0), Lane16::rebias(e8m0)),
                                                _mm256_packs_epi32(Lane16::rebias(e8m0), Lane16::rebias(e8m0)));
  const __m256i d_lo = _mm256_unpacklo_epi32(d_pairs, d_pairs);  // blocks 0, 1 | 4, 5
  const __m256i d_hi = _mm256_unpackhi_epi32(d_pairs, d_pairs);  // blocks 2, 3 | 6, 7
  const __m256i d_a = _mm256_permute2x128_si256(d_lo, d_hi, 0x20);
  const __m256i d_b = _mm256_permute2x128_si256(d_lo, d_hi, 0x31);

  // Steps 4-6 per row: multiply, narrow, pack 32 codes into bytes (FP8) or nibbles (FP4).
  const std::uint16_t* row = base;
  for (std::size_t r = 0; r < kBlockRows; ++r, row += stride, out_row += out_stride) {
    const __m256i in_a = load16(row);
    const __m256i in_b = load16(row + 16);
    __m256 lo_a, hi_a, lo_b, hi_b;
    __m256i codes_a, codes_b;  // u16 codes in column order per 128-bit half
    __m256i fallback = _mm256_setzero_si256();
    if (lanes16) {
      codes_a = Lane16::codes(in_a, d_a, fallback);
      codes_b = Lane16::codes(in_b, d_b, fallback);
    }
    if (lanes16 && _mm256_testz_si256(fallback, fallback)) {
      // done: codes from the 16-bit lanes
    } else if (!special) {
      // Finite blocks: y = |x| * M, and the sign comes straight from the input's sign bit.
      widen16<kInput>(_mm256_and_si256(in_a, magnitude_mask), lo_a, hi_a);
      widen16<kInput>(_mm256_and_si256(in_b, magnitude_mask), lo_b, hi_b);
      codes_a = _mm256_packus_epi32(Narrow::magnitude(_mm256_mul_ps(lo_a, m_lo_a)), Narrow::magnitude(_mm256_mul_ps(hi_a, m_hi_a)));
      codes_b = _mm256_packus_epi32(Narrow::magnitude(_mm256_mul_ps(lo_b, m_lo_b)), Narrow::magnitude(_mm256_mul_ps(hi_b, m_hi_b)));
      const __m256i sign_code = _mm256_set1_epi16(static_cast<short>(1u << (Format::kBits - 1)));
      constexpr int kSignShift = Bfloat16::kBits - Format::kBits;
      codes_a = _mm256_or_si256(codes_a, _mm256_and_si256(_mm256_srli_epi16(in_a, kSignShift), sign_code));
      codes_b = _mm256_or_si256(codes_b, _mm256_and_si256(_mm256_srli_epi16(in_b, kSignShift), sign_code));
    } else {
      // Blocks with Inf or NaN: the signed product decides, NaN by the policy (decisions.md 4-5).
      const __m256i nan_code = _mm256_set1_epi32(t.nan_code);
      widen16<kInput>(in_a, lo_a, hi_a);
      widen16<kInput>(in_b, lo_b, hi_b);
      codes_a = _mm256_packus_epi32(Narrow::full(_mm256_mul_ps(lo_a, m_lo_a), nan_code), Narrow::full(_mm256_mul_ps(hi_a, m_hi_a), nan_code));
      codes_b = _mm256_packus_epi32(Narrow::full(_mm256_mul_ps(lo_b, m_lo_b), nan_code), Narrow::full(_mm256_mul_ps(hi_b, m_hi_b), nan_code));
    }
    const __m256i bytes = _mm256_permute4x64_epi64(_mm256_packus_epi16(codes_a, codes_b), 0b11'01'10'00);
    if (!kFp4) {
      __m256i* out = reinterpret_cast<__m256i*>(out_row);
      if (stream) {
        _mm256_stream_si256(out, bytes);
      } else {
        _mm256_storeu_si256(out, bytes);
      }
    } else {
      // Byte pairs (element 2j, 2j+1) as u16 lanes -> one byte of two nibbles (stride 0).
      __m256i nibbles;
      if (kHighParity == 1) {
        nibbles = _mm256_or_si256(_mm256_and_si256(bytes, _mm256_set1_epi16(0x000F)),
                                  _mm256_and_si256(_mm256_srli_epi16(bytes, 4), _mm256_set1_epi16(0x00F0)));
      } else {
        nibbles = _mm256_or_si256(_mm256_and_si256(_mm256_slli_epi16(bytes, 4), _mm256_set1_epi16(0x00F0)),
                                  _mm256_srli_epi16(bytes, 8));
      }
      const __m128i packed = _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packus_epi16(nibbles, nibbles), 0b11'01'10'00));
      __m128i* out = reinterpret_cast<__m128i*>(out_row);
      if (stream) {
        _mm_stream_si128(out, packed);
      } else {
        _mm_storeu_si128(out, packed);
      }
    }
  }
}

// Columns that do not fill a chunk: the scalar block path, then the same packing.
void quantize_tail(const QuantizeConfig& config, const Tensor& t, std::size_t g, std::size_t col,
                   std::size_t scale_row) {
  const std::size_t first_block = col / kBlockCols;
  const std::size_t end_block = t.free / kBlockCols;
  const std::size_t width = t.free - col;
  std::uint8_t codes[kBlockRows * kChunkCols];
  quantize_blocks(config, t.input, g, first_block, end_block, codes, width, t.scale + scale_row * t.scale_cols + first_block);
  for (std::size_t r = 0; r < kBlockRows; ++r) {
    const std::size_t element = (g * kBlockRows + r) * t.free + col;
    if (!is_fp4(config.output)) {
      std::memcpy(t.data + element, codes + r * width, width);
    } else {
      pack_fp4(codes + r * width, width, 0, config.fp4_high_parity, t.data + element / 2);
    }
  }
}

template <InputDtype kInput, ElementKind kElement, int kHighParity>
MXCONFORM_AVX2 void quantize_tensor(const QuantizeConfig& config, const Tensor& t) {
  const int bias = emax_bias(config);
  const std::size_t groups = config.partitions / kBlockRows;
  const std::size_t vector_cols = t.free - t.free % kChunkCols;
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t scale_row = config.scale_layout == ScaleLayout::kPhysical ? scale_slot(g) : g;
    for (std::size_t col = 0; col < vector_cols; col += kChunkCols) {
      quantize_chunk<kInput, kElement, kHighParity>(t, g, col, scale_row, bias);
    }
    if (vector_cols < t.free) quantize_tail(config, t, g, vector_cols, scale_row);
  }
  if (t.stream) _mm_sfence();
}

// The one dispatch point: picks the kernel instantiation for the dtypes and parity.
using TensorKernel = void (*)(const QuantizeConfig&, const Tensor&);
template <InputDtype kInput>
TensorKernel select_for_input(const QuantizeConfig& config) {
  switch (info(config.output).element) {
    case ElementKind::kFp8E4m3fn: return quantize_tensor<kInput, ElementKind::kFp8E4m3fn, 0>;
    case ElementKind::kFp8E5m2: return quantize_tensor<kInput, ElementKind::kFp8E5m2, 0>;
    case ElementKind::kFp4E2m1:
      return config.fp4_high_parity == 1 ? quantize_tensor<kInput, ElementKind::kFp4E2m1, 1>
                                         : quantize_tensor<kInput, ElementKind::kFp4E2m1, 0>;
  }
  return nullptr;
}

TensorKernel select_kernel(const QuantizeConfig& config) {
  return config.input == InputDtype::kBfloat16 ? select_for_input<InputDtype::kBfloat16>(config)
                                               : select_for_input<InputDtype::kFloat16>(config);
}

// Non-temporal stores pay off once the output no longer fits in the caches, and need every row's
// chunk stores aligned (32 bytes for FP8, 16 for FP4).
bool use_streaming_stores(const QuantizeConfig& config, const std::uint8_t* data, std::size_t data_bytes) {
  constexpr std::size_t kStreamingThreshold = std::size_t{4} << 20;
  const std::size_t alignment = is_fp4(config.output) ? 16 : 32;
  const std::size_t row_bytes = is_fp4(config.output) ? config.free / 2 : config.free;
  return data_bytes >= kStreamingThreshold && reinterpret_cast<std::uintptr_t>(data) % alignment == 0 &&
         row_bytes % alignment == 0;
}

int nan_code(const QuantizeConfig& config) {
  const FormatInfo f = element_format(config.output);
  const bool has_nan_code = f.specials != Specials::kFiniteOnly && config.fp8_nan == Fp8NanPolicy::kCanonical;
  return has_nan_code ? static_cast<int>((1u << (f.bits - 1)) - 1) : 0;
}

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

class Avx2Backend final : public Implementation {
 public:
  std::string_view name() const override { return "avx2"; }
  std::string_view description() const override {
    return "AVX2 + F16C: 8x32 chunks, magic-constant RNE narrow, streaming stores; dequantize via scalar";
  }
  CpuFeatures required_features() const override {
    CpuFeatures needed;
    needed.avx2 = needed.f16c = needed.fma = needed.bmi2 = true;
    return needed;
  }

  void quantize(const QuantizeConfig& config, const std::uint16_t* input, std::uint8_t* data,
                std::uint8_t* scale) const override {
    const Geometry g = geometry(config);
    const Tensor t{input, data, scale, config.free, g.block_cols,
                   use_streaming_stores(config, data, g.data_bytes), nan_code(config)};
    select_kernel(config)(config, t);
    if (is_fp4(config.output) && config.fp4_lane_stride > 1) {
      reverse_windows_avx2(data, g.data_bytes, config.fp4_lane_stride);
    }
  }

  void dequantize(const QuantizeConfig& config, const std::uint8_t* data, const std::uint8_t* scale,
                  float* output) const override {
    scalar_backend().dequantize(config, data, scale, output);
  }
};

}  // namespace

const Implementation& avx2_backend() {
  static const Avx2Backend kBackend;
  return kBackend;
}

}  // namespace mxconform::impl
