#pragma once
// The list of compiled-in implementations, and run-time selection among them.
#include <string>
#include <string_view>
#include <vector>

#include "mxconform/subject.h"

namespace mxconform {

// Every compiled implementation, oracle first, in a fixed order.
const std::vector<const Subject*>& built_in_subjects();
// The implementation called `name`, or nullptr.
const Subject* find_built_in(std::string_view name);
// True when this CPU has every feature `impl` needs.
bool runnable_here(const Subject& impl);
// Empty when runnable_here(impl); otherwise why not: "this CPU lacks AVX-512 BW/VL".
std::string not_runnable_reason(const Subject& impl);
// Throws Error unless runnable_here(impl): "backend 'avx512' needs CPU features avx512bw avx512vl;
// this CPU has avx2 fma f16c bmi2". Every command that opens a built-in says it so.
void require_runnable_here(const Subject& impl);
// The fastest implementation this CPU can run (selected once, above any block loop).
const Subject& best_built_in();
// The fastest implementation a CPU with `cpu` can run, never the oracle: the run-time selection
// of best_built_in(), for any feature set.
const Subject& best_built_in_for(const CpuFeatures& cpu);

}  // namespace mxconform
