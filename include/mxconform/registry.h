#pragma once
// The list of compiled-in implementations, and run-time selection among them.
#include <string>
#include <string_view>
#include <vector>

#include "mxconform/implementation.h"

namespace mxconform {

// Every compiled implementation, oracle first, in a fixed order.
const std::vector<const Implementation*>& implementations();
// The implementation called `name`, or nullptr.
const Implementation* find_implementation(std::string_view name);
// True when this CPU has every feature `impl` needs.
bool runnable_here(const Implementation& impl);
// Empty when runnable_here(impl); otherwise why not: "this CPU lacks AVX-512 BW/VL".
std::string not_runnable_reason(const Implementation& impl);
// The fastest implementation this CPU can run (selected once, above any block loop).
const Implementation& best_implementation();
// The fastest implementation a CPU with `cpu` can run, never the oracle: the run-time selection
// of best_implementation(), for any feature set.
const Implementation& best_implementation_for(const CpuFeatures& cpu);

}  // namespace mxconform
