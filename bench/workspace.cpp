#include "workspace.h"

#include "bench_input.h"

namespace mxconform::bench {

const std::uint16_t* Workspace::input(const BenchSize& size, InputDtype dtype) {
  auto [slot, inserted] = inputs_.try_emplace({key(size), dtype});
  if (inserted) slot->second = make_input(size, dtype);
  return slot->second.data();
}

std::uint8_t* Workspace::data(const BenchSize& size) {
  auto [slot, inserted] = data_.try_emplace(key(size));
  if (inserted) slot->second = AlignedBuffer<std::uint8_t>(size.elements());
  return slot->second.data();
}

std::uint8_t* Workspace::scale(const BenchSize& size) {
  auto [slot, inserted] = scales_.try_emplace(key(size));
  if (inserted) {
    const QuantizeConfig config = case_config(size, InputDtype::kBfloat16, OutputDtype::kFloat8E4m3fn);
    slot->second = AlignedBuffer<std::uint8_t>(geometry(config).scale_bytes);
  }
  return slot->second.data();
}

std::uint8_t* Workspace::copy_destination(const BenchSize& size) {
  auto [slot, inserted] = copy_destinations_.try_emplace(key(size));
  if (inserted) slot->second = AlignedBuffer<std::uint8_t>(size.input_bytes());
  return slot->second.data();
}

const Workspace::SolReference& Workspace::sol_reference(const BenchSize& size, OutputFamily family) {
  auto [slot, inserted] = sol_references_.try_emplace({key(size), family});
  if (inserted) {
    // Streaming stores only where the output cannot stay in the caches anyway: at the L2 size
    // they would also push the quantizers' output out of the cache between the paired runs.
    const SolKernels kernels = sol_kernels(family);
    const bool streaming = kernels.streaming != nullptr && size.elements() >= kStreamingSize.elements();
    slot->second = streaming ? SolReference{kernels.streaming, "streaming stores"}
                             : SolReference{kernels.ordinary, "ordinary stores"};
  }
  return slot->second;
}

}  // namespace mxconform::bench
