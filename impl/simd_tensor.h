#pragma once
// What the SIMD kernels (avx2_backend.cpp, avx512_backend.cpp) share around their chunk code: the
// element and input formats as types, the tensor they write, how a chunk's rows are narrowed, the
// scalar tail, the NaN code and the one dispatch point from a configuration to a kernel
// instantiation. No intrinsics: the chunk code stays in each kernel's file under its target
// attribute.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "block_kernel.h"
#include "fp4_pack.h"
#include "mxconform/formats.h"
#include "mxconform/quantize_config.h"

namespace mxconform::impl::simd {

template <ElementKind kElement>
struct ElementFormat;
template <>
struct ElementFormat<ElementKind::kFp4E2m1> { using Type = E2M1; };
template <>
struct ElementFormat<ElementKind::kFp8E4m3fn> { using Type = E4M3FN; };
template <>
struct ElementFormat<ElementKind::kFp8E5m2> { using Type = E5M2; };

// The input format's layout in a 16-bit lane.
template <InputDtype kInput>
struct InputLayout {
  using Format = std::conditional_t<kInput == InputDtype::kBfloat16, Bfloat16, Float16>;
  static constexpr int kMantissaBits = Format::kMantissaBits;
  static constexpr int kBias = Format::kBias;
};

constexpr std::int16_t lane16(int value) {  // a 16-bit lane constant, taken modulo 2^16
  return static_cast<std::int16_t>(static_cast<std::uint16_t>(value & 0xFFFF));
}

struct Tensor {
  const std::uint16_t* input;
  std::uint8_t* data;
  std::uint8_t* scale;
  std::size_t free;
  std::size_t scale_cols;
  int nan_code;  // what a NaN becomes before its sign (FP8 NaN policy)
};

// How a chunk's rows are narrowed.
enum class ChunkPath {
  kClean,    // finite blocks, every E8M0 >= kMinE8m0: the 16-bit lane formula alone
  kGeneral,  // finite blocks: zeros forced to 0, rows with a subnormal input redone in fp32
  kSpecial,  // a block holds Inf or NaN: every row by the fp32 path with signs and NaN policy
};

// Both kernels leave fewer than this many columns of a row to quantize_tail.
constexpr std::size_t kMaxTailCols = 32;

// Columns [col, free) of partition group g, fewer than kMaxTailCols: the scalar block path, then
// the same packing (stride 0).
inline void quantize_tail(const QuantizeConfig& config, const Tensor& t, std::size_t g, std::size_t col,
                          std::size_t scale_row) {
  const std::size_t first_block = col / kBlockCols;
  const std::size_t end_block = t.free / kBlockCols;
  const std::size_t width = t.free - col;
  std::uint8_t codes[kBlockRows * kMaxTailCols];
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

// What a NaN element becomes before its sign: the FP8 NaN code, or 0 (FP4, or the zero policy).
inline int nan_code(const QuantizeConfig& config) {
  const FormatInfo f = element_format(config.output);
  const bool has_nan_code = f.has_nan && config.fp8_nan == Fp8NanPolicy::kCanonical;
  return has_nan_code ? static_cast<int>(f.nan_code) : 0;
}

using TensorKernel = void (*)(const QuantizeConfig&, const Tensor&);

// The one dispatch point: the kernel instantiation for the dtypes, parity and store kind.
// `Kernels::kernel<kInput, kElement, kHighParity, kStream>` names each.
template <class Kernels, InputDtype kInput, bool kStream>
TensorKernel select_for(const QuantizeConfig& config) {
  switch (info(config.output).element) {
    case ElementKind::kFp8E4m3fn: return Kernels::template kernel<kInput, ElementKind::kFp8E4m3fn, 0, kStream>;
    case ElementKind::kFp8E5m2: return Kernels::template kernel<kInput, ElementKind::kFp8E5m2, 0, kStream>;
    case ElementKind::kFp4E2m1:
      return config.fp4_high_parity == 1 ? Kernels::template kernel<kInput, ElementKind::kFp4E2m1, 1, kStream>
                                         : Kernels::template kernel<kInput, ElementKind::kFp4E2m1, 0, kStream>;
  }
  return nullptr;
}

template <class Kernels>
TensorKernel select_kernel(const QuantizeConfig& config, bool stream) {
  if (config.input == InputDtype::kBfloat16) {
    return stream ? select_for<Kernels, InputDtype::kBfloat16, true>(config)
                  : select_for<Kernels, InputDtype::kBfloat16, false>(config);
  }
  return stream ? select_for<Kernels, InputDtype::kFloat16, true>(config)
                : select_for<Kernels, InputDtype::kFloat16, false>(config);
}

}  // namespace mxconform::impl::simd
