#pragma once
// Counting the user-space instructions one call executes, by single-stepping it under ptrace.
// This VM exposes no hardware performance counters (perf stat reports instructions as not
// supported) and valgrind 3.19 cannot decode AVX-512, so stepping is the one counter that works
// for every kernel here. Slow (a few microseconds per instruction): meant for one quantize call on
// the L2-size bench input, not for the timed runs.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace mxconform::bench {

// The number of instructions `work` executes, counted in a forked child that runs `work` once
// untraced (so lazy symbol binding and first-touch costs stay out of the count), then once
// single-stepped by this process. The stepping overhead of the child's own stop is measured on an
// empty call and subtracted. nullopt, with the reason in `why_not`, when ptrace is not allowed.
std::optional<std::uint64_t> count_instructions(const std::function<void()>& work, std::string* why_not);

}  // namespace mxconform::bench
