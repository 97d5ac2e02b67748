#pragma once
// How the SIMD kernels store data bytes: the one place that decides between ordinary and
// non-temporal (streaming) stores, and how streaming stores are grouped into cache lines.
#include <cstddef>
#include <cstdint>

#include "mxconform/dtype.h"
#include "mxconform/quantize_config.h"

namespace mxconform::impl::simd {

enum class DataStores {
  kOrdinary,   // ordinary stores, straight from each chunk's rows
  kStreaming,  // non-temporal stores straight from each chunk's rows: each row is whole lines (FP8)
  kStreamingLines,  // FP4: a chunk's row is half a line; two chunks' rows are gathered in an L1
                    // buffer and each line leaves in one go, non-temporal
};

inline constexpr std::size_t kCacheLineBytes = 64;
// Below this much output, the data stays in the caches for whoever reads it next and ordinary
// stores are as fast; above it, streaming stores skip the read-for-ownership of every line.
inline constexpr std::size_t kStreamingThreshold = std::size_t{4} << 20;

// The data stores for a quantize writing `data_bytes` bytes at `data` (both SIMD kernels write a
// chunk row of 64 FP8 bytes or 32 FP4 bytes; FP4 pairs two chunks per line).
//
// Why whole lines: a non-temporal store goes to a write-combining buffer that leaves as one
// 64-byte write only when full; a partial buffer, evicted because the core ran out of them, leaves
// as several partial writes. A chunk writes 8 row streams at once. With 32 of each line's 64 bytes
// per visit (the FP4 rows before this decision), Intel cores, which have fewer fill buffers,
// collapsed: the issue reports avx2 BF16 -> FP4 at sol_ratio 0.36 on a Sapphire Rapids class
// machine against 0.96 for FP8, whose rows are whole lines; Zen 3 gave 0.65. Whole lines per stream
// are what both vendors' guides ask for, so the choice does not depend on the vendor. Measured on
// AMD EPYC family 26 (Zen 5 class) only, where the gathering costs about 10 % at 64 MiB against
// half lines (README.md, "Performance"); no Intel machine was available to measure whether it
// cures the collapse. If Intel shows no gain, half lines on AMD are the better choice.
//
// Streaming needs the output lines aligned: data on a 64-byte boundary and every row a whole
// number of lines, which for FP4 also makes a row an even number of 64-column chunks.
inline DataStores choose_data_stores(const QuantizeConfig& config, const std::uint8_t* data, std::size_t data_bytes) {
  const bool fp4 = is_fp4(config.output);
  const std::size_t row_bytes = fp4 ? config.free / 2 : config.free;
  const bool whole_lines = reinterpret_cast<std::uintptr_t>(data) % kCacheLineBytes == 0 && row_bytes % kCacheLineBytes == 0;
  if (data_bytes < kStreamingThreshold || !whole_lines) return DataStores::kOrdinary;
  return fp4 ? DataStores::kStreamingLines : DataStores::kStreaming;
}

}  // namespace mxconform::impl::simd
