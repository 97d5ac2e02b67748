#pragma once
// What the SIMD kernels (avx2_backend.cpp, avx512_backend.cpp) share around their chunk code: the
// element and input formats as types, the tensor they write, how a chunk's rows are narrowed, the
// scalar tail, the NaN code and the one dispatch point from a configuration to a kernel
// instantiation. No intrinsics: the chunk code stays in each kernel's file under its target
// attribute (the loop over chunks is chunk_loop.h, the stores both share simd_stores.h).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "block_kernel.h"
#include "data_stores.h"
#include "fp4_pack.h"
#include "mxconform/formats.h"
#include "mxconform/subject.h"
#include "mxconform/quantize_config.h"
#include "scalar_backend.h"

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

// The constants of the fp32 narrow (each kernel's VectorNarrow; avx2_backend.cpp derives it):
// |y| + C with C = 2^(E + 23 - m) rounds |y| to the element grid, E clamped below to the
// element's smallest normal exponent.
template <class Format>
struct Fp32NarrowConstants {
  static constexpr int kShift = Float32::kMantissaBits - Format::kMantissaBits;
  static constexpr int kMinNormalBits = (Float32::kBias + Format::kEmin) << Float32::kMantissaBits;
  static constexpr int kMagicOffset = kShift << Float32::kMantissaBits;  // bits(C) - bits(2^E)
  // (E + bias - 1) << m = (bits(2^E) >> shift) - kCodeRebias.
  static constexpr int kCodeRebias = (Float32::kBias + 1 - Format::kBias) << Format::kMantissaBits;
};

// The constants of the 16-bit lane narrow of finite blocks (LaneNarrow16 in avx2_backend.cpp,
// which derives t = a + D, the bands and the clean and general paths; LaneNarrow32 in
// avx512_backend.cpp). mi and Bi are the input's mantissa width and bias, m and B the element's.
template <InputDtype kInput, class Format>
struct LaneConstants {
  static constexpr int kInputMantissa = InputLayout<kInput>::kMantissaBits;
  static constexpr int kShift = kInputMantissa - Format::kMantissaBits;  // s = mi - m
  static constexpr int kHalfLessOne = (1 << (kShift - 1)) - 1;          // folded into D
  static constexpr int kNormal = 1 << kInputMantissa;                   // t at the smallest normal
  static constexpr int kKill = -Format::kMantissaBits * kNormal;        // K
  static constexpr bool kFp4 = std::is_same_v<Format, E2M1>;
  // d + B - Bi <= -(m + 1) for every block, i.e. E8M0 >= 128 - Bi + B + m: the clean path.
  static constexpr int kMinE8m0 =
      Float32::kBias + 1 - InputLayout<kInput>::kBias + Format::kBias + Format::kMantissaBits;
  // D + kHalfLessOne = kRebias - (e8m0 << mi).
  static constexpr int kRebias =
      ((Float32::kBias + Format::kBias - InputLayout<kInput>::kBias) << kInputMantissa) + kHalfLessOne;
  // FP8 lanes with t in [K, 2^mi) have (t + kHalfLessOne - kWindowStart) mod 2^16 < kWindowWidth.
  static constexpr int kWindowStart = kKill + kHalfLessOne;
  static constexpr int kWindowWidth = kNormal - kKill;
  static_assert(kWindowWidth < (1 << 16));
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
  bool prefetch;  // the chunks prefetch their rows ahead (streaming sizes, as input_prefetch() says)
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

// Where a chunk writes its data bytes: its first row and the distance to the next row.
struct ChunkOutput {
  std::uint8_t* data;
  std::size_t stride;
};

// A kernel's per-tensor state for work its chunks leave to later (chunk_loop.h): this one has
// none. A kernel that defers work gives a type with the same members.
struct NoDeferredWork {
  static constexpr bool kDefers = false;
  NoDeferredWork(const Tensor&, std::size_t /*out_stride*/) {}
  template <class Lanes>
  void finish(const Lanes&) {}
};

// The bookkeeping of a kernel's BandRows (avx2_backend.cpp says why FP8 rows that need the
// subnormal band are redone in batches at streaming sizes): which rows of the last kChunks wide
// chunks were noted, and each chunk's input, output and per-lane D + kHalfLessOne (`Rebiased`,
// a struct of the kernel's vectors: a vector type itself would lose its attributes as a template
// argument). The kernel's BandRows derives from it and recomputes the noted rows with its own
// instructions; nothing here computes.
template <class Rebiased>
class BandRowList {
 public:
  static constexpr bool kDefers = true;
  static constexpr int kChunks = 16;

  BandRowList(const Tensor& t, std::size_t out_stride) : in_stride_(t.free), out_stride_(out_stride) {}
  BandRowList(const BandRowList&) = delete;
  BandRowList& operator=(const BandRowList&) = delete;

  // A wide chunk notes its row r by `slots()[count] = first_slot() + r; count += needs_band;`,
  // starting from count(), and hands the count to note_chunk() (through the kernel's end_chunk).
  std::uint8_t* slots() { return slots_; }
  int count() const { return count_; }
  int first_slot() const { return filled_ * static_cast<int>(kBlockRows); }

 protected:
  struct NotedRow {
    const std::uint16_t* in;
    std::uint8_t* out;
    const Rebiased& rebiased;
  };

  // Records the chunk just noted. Its Rebiased is to be filled by the caller.
  Rebiased& note_chunk(int count, const std::uint16_t* in, std::uint8_t* out) {
    Chunk& chunk = chunks_[filled_];
    chunk.in = in;
    chunk.out = out;
    count_ = count;
    return chunk.rebiased;
  }
  // Counts the chunk just noted; true when the list is full and the rows are due.
  bool close_chunk() {
    return ++filled_ == kChunks;
  }
  // The i-th noted row, i < count().
  NotedRow noted_row(int i) const {
    const Chunk& chunk = chunks_[slots_[i] / kBlockRows];
    const std::size_t r = slots_[i] % kBlockRows;
    return {chunk.in + r * in_stride_, chunk.out + r * out_stride_, chunk.rebiased};
  }
  // After the noted rows are stored again.
  void clear() {
    count_ = 0;
    filled_ = 0;
  }

 private:
  struct Chunk {
    Rebiased rebiased;
    const std::uint16_t* in;
    std::uint8_t* out;
  };
  Chunk chunks_[kChunks];
  std::uint8_t slots_[kChunks * kBlockRows];
  int count_ = 0;   // rows noted
  int filled_ = 0;  // chunks noted
  std::size_t in_stride_;
  std::size_t out_stride_;
};

using TensorKernel = void (*)(const QuantizeConfig&, const Tensor&);

// The one dispatch point: the kernel instantiation for the dtypes, parity and data stores.
// `Kernels::kernel<kInput, kElement, kHighParity, kStores>` names each.
// choose_data_stores never gathers FP8 rows (they are whole lines already): FP8 shares its
// straight streaming instantiation with kStreamingLines; FP4 has one of each.
template <class Kernels, InputDtype kInput, DataStores kStores>
TensorKernel select_for(const QuantizeConfig& config) {
  constexpr DataStores kFp8 = kStores == DataStores::kStreamingLines ? DataStores::kStreaming : kStores;
  constexpr DataStores kFp4 = kStores;
  switch (info(config.output).element) {
    case ElementKind::kFp8E4m3fn: return Kernels::template kernel<kInput, ElementKind::kFp8E4m3fn, 0, kFp8>;
    case ElementKind::kFp8E5m2: return Kernels::template kernel<kInput, ElementKind::kFp8E5m2, 0, kFp8>;
    case ElementKind::kFp4E2m1:
      return config.fp4_high_parity == 1 ? Kernels::template kernel<kInput, ElementKind::kFp4E2m1, 1, kFp4>
                                         : Kernels::template kernel<kInput, ElementKind::kFp4E2m1, 0, kFp4>;
  }
  return nullptr;
}

template <class Kernels, InputDtype kInput>
TensorKernel select_stores(const QuantizeConfig& config, DataStores stores) {
  switch (stores) {
    case DataStores::kOrdinary: return select_for<Kernels, kInput, DataStores::kOrdinary>(config);
    case DataStores::kStreaming: return select_for<Kernels, kInput, DataStores::kStreaming>(config);
    case DataStores::kStreamingLines: return select_for<Kernels, kInput, DataStores::kStreamingLines>(config);
  }
  return nullptr;
}

template <class Kernels>
TensorKernel select_kernel(const QuantizeConfig& config, DataStores stores) {
  return config.input == InputDtype::kBfloat16 ? select_stores<Kernels, InputDtype::kBfloat16>(config, stores)
                                               : select_stores<Kernels, InputDtype::kFloat16>(config, stores);
}

// A SIMD implementation as a subject: `Kernel` (one per kernel file) names it and gives its
// kernel instantiations (`Kernels`) and the lane remap of packed bytes; choose_data_stores and
// input_prefetch (data_stores.h) decide the stores and the prefetch for both.
// Dequantize goes through the scalar implementation.
template <class Kernel>
class Backend final : public Subject {
 public:
  std::string_view name() const override { return Kernel::kName; }
  std::string_view description() const override { return Kernel::kDescription; }
  CpuFeatures required_features() const override { return Kernel::required_features(); }

  void quantize(const QuantizeConfig& config, const std::uint16_t* input, std::uint8_t* data,
                std::uint8_t* scale) const override {
    const Geometry g = geometry(config);
    const DataStores stores = choose_data_stores(config, data, g.data_bytes);
    // The input streams from memory whenever the output does; at smaller sizes prefetching is
    // pure cost.
    const bool prefetch = stores != DataStores::kOrdinary && input_prefetch() == InputPrefetch::kRowStreams;
    const Tensor t{input, data, scale, config.free, g.block_cols, nan_code(config), prefetch};
    select_kernel<typename Kernel::Kernels>(config, stores)(config, t);
    if (is_fp4(config.output) && config.fp4_lane_stride > 1) {
      Kernel::reverse_windows(data, g.data_bytes, config.fp4_lane_stride);
    }
  }

  void dequantize(const QuantizeConfig& config, const std::uint8_t* data, const std::uint8_t* scale,
                  float* output) const override {
    scalar_backend().dequantize(config, data, scale, output);
  }
};

}  // namespace mxconform::impl::simd
