#pragma once
// The per-tensor loop over chunks that both SIMD kernels run (simd_tensor.h has the rest they
// share). No intrinsics of its own: the chunks are the kernels', the stores simd_stores.h's.
#include <cstddef>
#include <cstdint>

#include "data_stores.h"
#include "simd_stores.h"
#include "simd_tensor.h"

namespace mxconform::impl::simd {

// The per-tensor loop both kernels run: for each group of kBlockRows rows, the row's wide chunks,
// one narrow chunk for a remainder of at least kNarrowCols columns, the scalar tail for
// the rest. `Lanes<kInput, Format>` are the kernel's lane constants, built once per tensor,
// kWideCols and kNarrowCols the columns of its two chunk widths; `Chunks` (one per kernel file)
// gives:
//   Deferred<kInput, kElement, kStores>   per-tensor state (simd::NoDeferredWork or one with its
//                             members): work the chunks leave to later, which finish(lanes)
//                             completes before the call returns;
//   chunk<kInput, kElement, kHighParity, kStream, kPrefetch, kWide>(t, lanes, deferred, g, col,
//                             scale_row, bias, out)   one chunk: its data bytes to `out`
//                             (non-temporal with kStream), its E8M0 bytes to t.scale; with
//                             kPrefetch (t.prefetch, at streaming sizes only) it prefetches its
//                             rows ahead;
//   kMeasuresAhead            true: with ordinary stores a row of wide chunks goes in halves,
//                             measure<kInput, kElement, kPrefetch, true>(t, lanes, g, col,
//                             scale_row, bias) (steps 1-3: stores the E8M0 bytes, returns what
//                             the narrow needs) and narrow<kInput, kElement, kHighParity,
//                             kStream, true>(t, lanes, deferred, measured, g, col, out) (steps
//                             4-6), each chunk measured before the one ahead of it is narrowed;
// With DataStores::kStreamingLines, two FP4 chunks write their half lines to an L1 buffer and
// each row's line then leaves whole (data_stores.h says why). Runs inside a kernel's entry point
// that carries its target attribute and `flatten`: that inlines this loop and the chunks into it.
template <class Chunks, template <InputDtype, class> class Lanes, std::size_t kWideCols, std::size_t kNarrowCols,
          InputDtype kInput, ElementKind kElement, int kHighParity, DataStores kStores, bool kPrefetch>
inline void quantize_groups(const QuantizeConfig& config, const Tensor& tensor) {
  // A local copy: the chunks' byte stores could alias a Tensor reached through a reference, and
  // the compiler would reload its fields after every store.
  const Tensor t = tensor;
  constexpr bool kFp4 = kElement == ElementKind::kFp4E2m1;
  constexpr bool kStreamRows = kStores == DataStores::kStreaming;
  constexpr std::size_t kElementsPerByte = kFp4 ? 2 : 1;
  const int bias = emax_bias(config);
  const Lanes<kInput, typename ElementFormat<kElement>::Type> lanes;
  const std::size_t out_stride = t.free / kElementsPerByte;
  typename Chunks::template Deferred<kInput, kElement, kStores> deferred(t, out_stride);
  const std::size_t groups = config.partitions / kBlockRows;
  const std::size_t wide_cols = t.free - t.free % kWideCols;
  const bool narrow_chunk = t.free - wide_cols >= kNarrowCols;
  const std::size_t vector_cols = wide_cols + (narrow_chunk ? kNarrowCols : 0);
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t row = scale_row(config, g);
    std::uint8_t* const out = t.data + g * kBlockRows * out_stride;
    std::size_t col = 0;
    if constexpr (kFp4 && kStores == DataStores::kStreamingLines) {
      // Two wide chunks fill one line of each of their rows.
      static_assert(kWideCols / kElementsPerByte * 2 == kCacheLineBytes);
      constexpr std::size_t kHalfLine = kCacheLineBytes / 2;
      alignas(kCacheLineBytes) std::uint8_t lines[kBlockRows * kCacheLineBytes];
      for (; col + 2 * kWideCols <= wide_cols; col += 2 * kWideCols) {
        Chunks::template chunk<kInput, kElement, kHighParity, false, kPrefetch, true>(
            t, lanes, deferred, g, col, row, bias, ChunkOutput{lines, kCacheLineBytes});
        Chunks::template chunk<kInput, kElement, kHighParity, false, kPrefetch, true>(
            t, lanes, deferred, g, col + kWideCols, row, bias, ChunkOutput{lines + kHalfLine, kCacheLineBytes});
        stream_lines(lines, kBlockRows, out + col / kElementsPerByte, out_stride);
      }
    }
    if constexpr (Chunks::kMeasuresAhead && kStores == DataStores::kOrdinary) {
      if (col < wide_cols) {
        auto next = Chunks::template measure<kInput, kElement, kPrefetch, true>(t, lanes, g, col, row, bias);
        for (; col < wide_cols; col += kWideCols) {
          const auto measured = next;
          if (col + kWideCols < wide_cols) {
            next = Chunks::template measure<kInput, kElement, kPrefetch, true>(t, lanes, g, col + kWideCols, row, bias);
          }
          Chunks::template narrow<kInput, kElement, kHighParity, kStreamRows, true>(
              t, lanes, deferred, measured, g, col, ChunkOutput{out + col / kElementsPerByte, out_stride});
        }
      }
    } else {
      for (; col < wide_cols; col += kWideCols) {
        Chunks::template chunk<kInput, kElement, kHighParity, kStreamRows, kPrefetch, true>(
            t, lanes, deferred, g, col, row, bias, ChunkOutput{out + col / kElementsPerByte, out_stride});
      }
    }
    if (narrow_chunk) {
      Chunks::template chunk<kInput, kElement, kHighParity, kStreamRows, kPrefetch, false>(
          t, lanes, deferred, g, wide_cols, row, bias, ChunkOutput{out + wide_cols / kElementsPerByte, out_stride});
    }
    if (vector_cols < t.free) quantize_tail(config, t, g, vector_cols, row);
  }
  deferred.finish(lanes);
  if constexpr (kStores != DataStores::kOrdinary) end_streaming();
}

// The loop with the prefetch decided at compile time (ordinary stores never prefetch: a branch
// in every chunk cost about 4 % in the L2).
template <class Chunks, template <InputDtype, class> class Lanes, std::size_t kWideCols, std::size_t kNarrowCols,
          InputDtype kInput, ElementKind kElement, int kHighParity, DataStores kStores>
inline void quantize_tensor(const QuantizeConfig& config, const Tensor& t) {
  if constexpr (kStores == DataStores::kOrdinary) {
    quantize_groups<Chunks, Lanes, kWideCols, kNarrowCols, kInput, kElement, kHighParity, kStores, false>(config, t);
  } else if (t.prefetch) {
    quantize_groups<Chunks, Lanes, kWideCols, kNarrowCols, kInput, kElement, kHighParity, kStores, true>(config, t);
  } else {
    quantize_groups<Chunks, Lanes, kWideCols, kNarrowCols, kInput, kElement, kHighParity, kStores, false>(config, t);
  }
}

}  // namespace mxconform::impl::simd
