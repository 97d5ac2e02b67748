#pragma once
// How the SIMD kernels move data: the one place that decides between ordinary and non-temporal
// (streaming) stores, how streaming stores are grouped into cache lines, and whether the kernels
// prefetch their input at streaming sizes.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "mxconform/cpu_features.h"
#include "mxconform/dtype.h"
#include "mxconform/quantize_config.h"

namespace mxconform::impl::simd {

enum class DataStores {
  kOrdinary,   // ordinary stores, straight from each chunk's rows
  kStreaming,  // non-temporal stores straight from each chunk's rows: whole lines (FP8), half
               // lines (FP4)
  kStreamingLines,  // FP4: a chunk's row is half a line; two chunks' rows are gathered in an L1
                    // buffer and each line leaves in one go, non-temporal
};

inline constexpr std::size_t kCacheLineBytes = 64;
// Below this much output, the data stays in the caches for whoever reads it next and ordinary
// stores are as fast; above it, streaming stores skip the read-for-ownership of every line.
inline constexpr std::size_t kStreamingThreshold = std::size_t{4} << 20;

// How FP4 rows stream. A chunk writes 32 bytes, half a line, of each of its 8 rows.
enum class Fp4Streaming {
  kHalfLines,   // each chunk's half lines leave as they are (DataStores::kStreaming)
  kWholeLines,  // two chunks' halves are gathered and leave as whole lines (kStreamingLines)
};

// The decision for a CPU, from what was measured on its family.
//
// A non-temporal store goes to a write-combining buffer that leaves as one 64-byte write only
// when full; a partial buffer, evicted because the core ran out of them, leaves as several partial
// writes. A chunk opens 8 row streams at once, and with half a line per visit each buffer waits
// for the next chunk to fill it. Intel cores (Sapphire Rapids class, family 6) collapsed on that:
// avx2 BF16 -> FP4 at sol_ratio 0.23 with half lines against 0.53 with whole lines, avx512 0.23
// against 0.79. The AMD families measured did not: Zen 2 (family 0x17) 0.76 against 0.75, Zen 3
// (0x19) 0.65 with half lines, Zen 5 (0x1A) about 10 % faster with half lines (README.md,
// "Performance"). So half lines only on those AMD families; whole lines everywhere else, since a
// CPU never measured risks the collapse, and whole lines cost at most about 10 % where there is
// none.
constexpr Fp4Streaming fp4_streaming_for(const CpuModel& cpu) {
  const bool measured_without_collapse =
      cpu.vendor == CpuVendor::kAmd && (cpu.family == 0x17 || cpu.family == 0x19 || cpu.family == 0x1A);
  return measured_without_collapse ? Fp4Streaming::kHalfLines : Fp4Streaming::kWholeLines;
}

// This process's choice: MXCONFORM_FP4_STREAMING=half-lines or whole-lines when set (to measure
// one against the other on one machine; any other value is ignored with a note on stderr), else
// fp4_streaming_for(this CPU's family), read once; or what force_fp4_streaming last set.
Fp4Streaming fp4_streaming();
// Makes every later quantize of this process stream FP4 rows as `streaming` (a test of both ways
// on one machine, a bench of one against the other); std::nullopt goes back to fp4_streaming's own
// choice.
void force_fp4_streaming(std::optional<Fp4Streaming> streaming);
// "half-lines" or "whole-lines".
const char* name(Fp4Streaming streaming);

// Whether the kernels prefetch the 8 row streams a chunk reads, a few chunks ahead, when the
// output streams (the input then comes from memory too).
enum class InputPrefetch {
  kRowStreams,  // software prefetch of each row, 4 chunks ahead
  kNone,        // the hardware prefetchers alone
};

// The decision for a CPU, from what was measured on its family.
//
// The kernels were first tuned with the prefetch on (AMD Zen 3), and on a Zen 2 VM with slower
// memory 4 chunks ahead was the best distance of 2 to 8. On a Zen 2 VM with faster memory (AMD
// family 0x17 model 0x31, speed of light 7.0-7.8 Gelem/s at 64 MiB) the hardware prefetchers
// alone were faster in every paired run: avx2 BF16 -> e4m3fn sol_ratio 0.83 / 0.82 with the
// prefetch against 0.92 / 0.88 without, e5m2 0.96 / 0.96 against 1.05 / 1.02, FP4 0.87 / 0.87
// against 0.92 / 0.92 (README.md, "Performance"); distances 2, 8 and 16, into L2 only, or along
// the next group in address order were all slower than 4. So no prefetch on that family. On AMD
// family 0x1A (Zen 5, model 2) the prefetch was measured faster, paired, three runs: avx512 BF16
// -> e4m3fn 0.80 with it against 0.70 without, e5m2 0.85 against 0.74, and on two threads every
// case 0.79-0.86 against 0.63-0.78; so it stays on there. Every other CPU keeps the prefetch it
// was tuned with until it is measured (MXCONFORM_PREFETCH=none against rows).
constexpr InputPrefetch input_prefetch_for(const CpuModel& cpu) {
  const bool measured_faster_without = cpu.vendor == CpuVendor::kAmd && cpu.family == 0x17;
  return measured_faster_without ? InputPrefetch::kNone : InputPrefetch::kRowStreams;
}

// This process's choice: MXCONFORM_PREFETCH=rows or none when set (any other value is ignored
// with a note on stderr), else input_prefetch_for(this CPU's family), read once; or what
// force_input_prefetch last set.
InputPrefetch input_prefetch();
// Makes every later quantize of this process prefetch as `prefetch`; std::nullopt goes back to
// input_prefetch's own choice.
void force_input_prefetch(std::optional<InputPrefetch> prefetch);
// "rows" or "none".
const char* name(InputPrefetch prefetch);

// The data stores for a quantize writing `data_bytes` bytes at `data` (both SIMD kernels write a
// chunk row of 64 FP8 bytes or 32 FP4 bytes), FP4 rows streaming as `fp4`.
//
// Streaming needs the output lines aligned: data on a 64-byte boundary and every row a whole
// number of lines, which for FP4 also makes a row an even number of 64-column chunks.
inline DataStores choose_data_stores(const QuantizeConfig& config, const std::uint8_t* data, std::size_t data_bytes,
                                     Fp4Streaming fp4 = fp4_streaming()) {
  const bool is_fp4_output = is_fp4(config.output);
  const std::size_t row_bytes = is_fp4_output ? config.free / 2 : config.free;
  const bool whole_lines = reinterpret_cast<std::uintptr_t>(data) % kCacheLineBytes == 0 && row_bytes % kCacheLineBytes == 0;
  if (data_bytes < kStreamingThreshold || !whole_lines) return DataStores::kOrdinary;
  return is_fp4_output && fp4 == Fp4Streaming::kWholeLines ? DataStores::kStreamingLines : DataStores::kStreaming;
}

}  // namespace mxconform::impl::simd
