#pragma once
// The list of compiled-in implementations, and run-time selection among them.
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
// The fastest implementation this CPU can run (selected once, above any block loop).
const Implementation& best_implementation();

}  // namespace mxconform
