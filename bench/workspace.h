#pragma once
// The buffers and reference throughputs shared by the benchmarks of one run. Each is built on
// first use (so a --benchmark_filter that skips the 64 MiB cases never allocates them), outside
// any timed region, and kept for the rest of the run.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string_view>
#include <tuple>
#include <utility>

#include "aligned_buffer.h"
#include "bench_cases.h"
#include "speed_of_light.h"
#include "mxconform/dtype.h"

namespace mxconform::bench {

class Workspace {
 public:
  // P*F raw input bits of `dtype` for `size` (bench_input.h).
  const std::uint16_t* input(const BenchSize& size, InputDtype dtype);
  // The quantizer's data buffer for `size`, large enough for FP8 (FP4 uses the front half).
  std::uint8_t* data(const BenchSize& size);
  // The scale buffer for `size`: geometry().scale_bytes of the physical layout, the larger one.
  std::uint8_t* scale(const BenchSize& size);
  // A destination for copying the whole input of `size`.
  std::uint8_t* copy_destination(const BenchSize& size);
  // The speed-of-light reference for (size, family): the kernel with streaming (non-temporal)
  // stores at the streaming size, where it is the faster way to move the bytes, and with
  // ordinary stores at the L2-resident size.
  struct SolReference {
    SolKernel kernel = nullptr;
    std::string_view stores;  // "ordinary stores" or "streaming stores"
  };
  const SolReference& sol_reference(const BenchSize& size, OutputFamily family);

 private:
  using SizeKey = std::pair<std::size_t, std::size_t>;  // (P, F)
  static SizeKey key(const BenchSize& size) { return {size.partitions, size.free}; }

  std::map<std::pair<SizeKey, InputDtype>, AlignedBuffer<std::uint16_t>> inputs_;
  std::map<SizeKey, AlignedBuffer<std::uint8_t>> data_;
  std::map<SizeKey, AlignedBuffer<std::uint8_t>> scales_;
  std::map<SizeKey, AlignedBuffer<std::uint8_t>> copy_destinations_;
  std::map<std::pair<SizeKey, OutputFamily>, SolReference> sol_references_;
};

}  // namespace mxconform::bench
