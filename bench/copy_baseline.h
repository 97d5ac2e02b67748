#pragma once
// Copy baselines: what this machine's memory system delivers to one core, in the same run as
// the quantizers.
#include <cstddef>
#include <string_view>

namespace mxconform::bench {

// Copies `bytes` bytes with non-temporal (streaming) stores and ends with an sfence: 32-byte
// AVX2 stores when this CPU has AVX2, 16-byte SSE2 ones otherwise (chosen once).
// Preconditions: source and destination 32-byte aligned, not overlapping.
void copy_non_temporal(const void* source, void* destination, std::size_t bytes);
// "avx2" or "sse2": which copy_non_temporal runs.
std::string_view copy_non_temporal_isa();

}  // namespace mxconform::bench
