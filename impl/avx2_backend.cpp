// The AVX2 implementation. Every function that uses AVX2, F16C or FMA instructions carries the
// target attribute below; nothing in this file is compiled with a global -mavx2, so the portable
// code that the header functions inline into elsewhere stays portable. Selected at run time
// (registry.cpp) only when CPUID reports the features.
#include "avx2_backend.h"

#include <immintrin.h>

#include <algorithm>
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

// Per-format constants of the vector narrow (decisions.md step 5), derived from FormatInfo.
//
// The narrow rounds |y| onto the element grid with one fp32 add and subtract of a constant C
// whose ulp is the grid spacing at |y|'s exponent (clamped below to the element's smallest
// normal exponent, so the subnormal band has the subnormal spacing): (|y| + C) - C is |y|
// rounded to nearest, ties to the even multiple, which is the even code. The rounded value r
// is a grid point; r * 2^(bias - 127) is an fp32 whose bits, shifted right by (23 - m), are the
// element code: exponent and mantissa for normals, and the fp32 denormal encoding lines up with
// the element's subnormal encoding. Codes above max saturate. Exhaustively checked against the
// oracle by avx2_exhaustive_test.
struct NarrowConstants {
  __m256i min_exponent;    // fp32 bits of 2^(1 - bias): the element's smallest normal
  __m256i max_exponent;    // fp32 bits of 2^(emax + 2): larger magnitudes saturate anyway
  __m256i magic_offset;    // (23 - m) << 23: C = 2^(e + 23 - m)
  __m256 to_code_scale;    // 2^(bias - 127)
  __m128i code_shift;      // 23 - m
  __m256i max_code;
  __m256i nan_code;        // what a NaN lane becomes, before its sign
  __m128i sign_shift;      // 32 - bits: the fp32 sign bit to the element's sign bit
};

MXCONFORM_AVX2 NarrowConstants make_constants(const QuantizeConfig& config) {
  const FormatInfo f = element_format(config.output);
  const int m = f.mantissa_bits;
  const int mantissa_shift = Float32::kMantissaBits - m;
  const bool nan_code = f.specials != Specials::kFiniteOnly && config.fp8_nan == Fp8NanPolicy::kCanonical;
  NarrowConstants c;
  c.min_exponent = _mm256_set1_epi32((Float32::kBias + 1 - f.bias) << Float32::kMantissaBits);
  c.max_exponent = _mm256_set1_epi32((Float32::kBias + f.emax + 2) << Float32::kMantissaBits);
  c.magic_offset = _mm256_set1_epi32(mantissa_shift << Float32::kMantissaBits);
  c.to_code_scale = _mm256_castsi256_ps(_mm256_set1_epi32(f.bias << Float32::kMantissaBits));
  c.code_shift = _mm_cvtsi32_si128(mantissa_shift);
  c.max_code = _mm256_set1_epi32(static_cast<int>(f.max_code));
  c.nan_code = _mm256_set1_epi32(nan_code ? static_cast<int>((1u << (f.bits - 1)) - 1) : 0);
  c.sign_shift = _mm_cvtsi32_si128(Float32::kBits - f.bits);
  return c;
}

// Eight prescaled fp32 values to eight element codes (int32 lanes, sign included).
template <bool kMayHaveNan>
MXCONFORM_AVX2 inline __m256i narrow8(__m256 y, const NarrowConstants& c) {
  const __m256i bits = _mm256_castps_si256(y);
  const __m256i sign_mask = _mm256_set1_epi32(static_cast<int>(Float32::kSignMask));
  const __m256i magnitude = _mm256_andnot_si256(sign_mask, bits);
  __m256i exponent = _mm256_and_si256(magnitude, _mm256_set1_epi32(static_cast<int>(Float32::kExponentMask)));
  exponent = _mm256_min_epi32(_mm256_max_epi32(exponent, c.min_exponent), c.max_exponent);
  const __m256 magic = _mm256_castsi256_ps(_mm256_add_epi32(exponent, c.magic_offset));
  const __m256 rounded = _mm256_sub_ps(_mm256_add_ps(_mm256_castsi256_ps(magnitude), magic), magic);
  const __m256i scaled = _mm256_castps_si256(_mm256_mul_ps(rounded, c.to_code_scale));
  __m256i code = _mm256_min_epu32(_mm256_srl_epi32(scaled, c.code_shift), c.max_code);
  if (kMayHaveNan) {
    const __m256i is_nan = _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(static_cast<int>(Float32::kInfCode)));
    code = _mm256_blendv_epi8(code, c.nan_code, is_nan);
  }
  return _mm256_or_si256(code, _mm256_srl_epi32(_mm256_and_si256(bits, sign_mask), c.sign_shift));
}

// Sixteen input elements as two fp32 vectors: `lo` holds columns 0-3 and 8-11, `hi` columns 4-7
// and 12-15 (the order _mm256_packus_epi32 undoes).
template <InputDtype kInput>
MXCONFORM_AVX2 inline void widen16(const std::uint16_t* p, __m256& lo, __m256& hi) {
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
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

// The largest magnitude bits (sign cleared) of each 4-column group of 16 elements, in u16 lane 0
// of each 64-bit unit. The fp32 exponent field is monotone in these bits for both input dtypes.
MXCONFORM_AVX2 inline __m256i group_max(__m256i running) {
  running = _mm256_max_epu16(running, _mm256_srli_epi64(running, 16));
  return _mm256_max_epu16(running, _mm256_srli_epi64(running, 32));
}

struct Tensor {
  const std::uint16_t* input;
  std::uint8_t* data;
  std::uint8_t* scale;
  std::size_t free;
  std::size_t scale_cols;
};

// One chunk: partition group g, columns [col, col + 32). Writes the data bytes and 8 E8M0 bytes.
template <InputDtype kInput, bool kFp4, int kHighParity>
MXCONFORM_AVX2 void quantize_chunk(const Tensor& t, std::size_t g, std::size_t col, std::size_t scale_row,
                                   int bias, const NarrowConstants& c) {
  const std::uint16_t* base = t.input + g * kBlockRows * t.free + col;
  // Steps 1-2: block maxima of magnitude bits over the 8 rows, then within 4-column groups.
  const __m256i magnitude_mask = _mm256_set1_epi16(0x7FFF);
  __m256i max_a = _mm256_setzero_si256();
  __m256i max_b = _mm256_setzero_si256();
  for (std::size_t r = 0; r < kBlockRows; ++r) {
    const std::uint16_t* row = base + r * t.free;
    max_a = _mm256_max_epu16(max_a, _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row)), magnitude_mask));
    max_b = _mm256_max_epu16(max_b, _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 16)), magnitude_mask));
  }
  alignas(32) std::uint16_t maxima[2][16];
  _mm256_store_si256(reinterpret_cast<__m256i*>(maxima[0]), group_max(max_a));
  _mm256_store_si256(reinterpret_cast<__m256i*>(maxima[1]), group_max(max_b));

  // Step 3, per block (8 per chunk): E8M0 and the multiplier's bits.
  alignas(32) std::uint32_t multiplier[kChunkBlocks];
  bool special = false;
  for (std::size_t b = 0; b < kChunkBlocks; ++b) {
    const std::uint16_t largest = maxima[b / 4][(b % 4) * 4];
    const std::uint32_t field =
        exponent_field(kInput == InputDtype::kBfloat16 ? widen_bf16(largest) : widen_f16(largest));
    special |= field == Float32::kExponentFieldMax;
    const std::uint32_t e8m0 = e8m0_from_max_field(field, bias);
    t.scale[scale_row * t.scale_cols + col / kBlockCols + b] = static_cast<std::uint8_t>(e8m0);
    multiplier[b] = multiplier_bits(e8m0);
  }
  // Multipliers in the lane order of widen16: lo = blocks 0, 2 (of a 16-column half), hi = 1, 3.
  const __m256i blocks = _mm256_load_si256(reinterpret_cast<const __m256i*>(multiplier));
  const __m256 m_lo_a = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(blocks, _mm256_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2)));
  const __m256 m_hi_a = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(blocks, _mm256_setr_epi32(1, 1, 1, 1, 3, 3, 3, 3)));
  const __m256 m_lo_b = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(blocks, _mm256_setr_epi32(4, 4, 4, 4, 6, 6, 6, 6)));
  const __m256 m_hi_b = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(blocks, _mm256_setr_epi32(5, 5, 5, 5, 7, 7, 7, 7)));

  // Steps 4-6 per row: multiply, narrow, pack 32 codes into bytes (FP8) or nibbles (FP4).
  for (std::size_t r = 0; r < kBlockRows; ++r) {
    const std::uint16_t* row = base + r * t.free;
    __m256 lo_a, hi_a, lo_b, hi_b;
    widen16<kInput>(row, lo_a, hi_a);
    widen16<kInput>(row + 16, lo_b, hi_b);
    __m256i codes_a, codes_b;
    if (special) {
      codes_a = _mm256_packus_epi32(narrow8<true>(_mm256_mul_ps(lo_a, m_lo_a), c), narrow8<true>(_mm256_mul_ps(hi_a, m_hi_a), c));
      codes_b = _mm256_packus_epi32(narrow8<true>(_mm256_mul_ps(lo_b, m_lo_b), c), narrow8<true>(_mm256_mul_ps(hi_b, m_hi_b), c));
    } else {
      codes_a = _mm256_packus_epi32(narrow8<false>(_mm256_mul_ps(lo_a, m_lo_a), c), narrow8<false>(_mm256_mul_ps(hi_a, m_hi_a), c));
      codes_b = _mm256_packus_epi32(narrow8<false>(_mm256_mul_ps(lo_b, m_lo_b), c), narrow8<false>(_mm256_mul_ps(hi_b, m_hi_b), c));
    }
    // u16 codes in column order per 128-bit half; to 32 bytes in column order.
    const __m256i bytes = _mm256_permute4x64_epi64(_mm256_packus_epi16(codes_a, codes_b), 0b11'01'10'00);
    const std::size_t element = (g * kBlockRows + r) * t.free + col;
    if (!kFp4) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(t.data + element), bytes);
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
      const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(nibbles, nibbles), 0b11'01'10'00);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(t.data + element / 2), _mm256_castsi256_si128(packed));
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

template <InputDtype kInput, bool kFp4, int kHighParity>
MXCONFORM_AVX2 void quantize_tensor(const QuantizeConfig& config, const Tensor& t) {
  const NarrowConstants c = make_constants(config);
  const int bias = emax_bias(config);
  const std::size_t groups = config.partitions / kBlockRows;
  const std::size_t vector_cols = t.free - t.free % kChunkCols;
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t scale_row = config.scale_layout == ScaleLayout::kPhysical ? scale_slot(g) : g;
    for (std::size_t col = 0; col < vector_cols; col += kChunkCols) {
      quantize_chunk<kInput, kFp4, kHighParity>(t, g, col, scale_row, bias, c);
    }
    if (vector_cols < t.free) quantize_tail(config, t, g, vector_cols, scale_row);
  }
}

// The one dispatch point: picks the kernel instantiation for the dtypes and parity.
using TensorKernel = void (*)(const QuantizeConfig&, const Tensor&);
TensorKernel select_kernel(const QuantizeConfig& config) {
  const bool bf16 = config.input == InputDtype::kBfloat16;
  if (!is_fp4(config.output)) {
    return bf16 ? quantize_tensor<InputDtype::kBfloat16, false, 1> : quantize_tensor<InputDtype::kFloat16, false, 1>;
  }
  if (config.fp4_high_parity == 1) {
    return bf16 ? quantize_tensor<InputDtype::kBfloat16, true, 1> : quantize_tensor<InputDtype::kFloat16, true, 1>;
  }
  return bf16 ? quantize_tensor<InputDtype::kBfloat16, true, 0> : quantize_tensor<InputDtype::kFloat16, true, 0>;
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
    return "AVX2 + F16C: 8x32 chunks, magic-constant RNE narrow; dequantize via scalar";
  }
  CpuFeatures required_features() const override {
    CpuFeatures needed;
    needed.avx2 = needed.f16c = needed.fma = needed.bmi2 = true;
    return needed;
  }

  void quantize(const QuantizeConfig& config, const std::uint16_t* input, std::uint8_t* data,
                std::uint8_t* scale) const override {
    const Geometry g = geometry(config);
    const Tensor t{input, data, scale, config.free, g.block_cols};
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
