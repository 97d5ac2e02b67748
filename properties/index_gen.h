#pragma once
// The one RapidCheck primitive the generators are built from: a uniform index below n at every
// generation size, shrinking towards 0. RapidCheck's own integer generators widen their range
// with the size, so they are not used directly.
#include <rapidcheck.h>

#include <cstddef>

namespace mxconform::properties {

// Uniform in [0, n), n >= 1; shrinks towards 0. At rc::kNominalSize inRange covers its whole
// range; larger sizes are undefined behaviour in the packaged RapidCheck, so none is ever used.
inline rc::Gen<std::size_t> index_below(std::size_t n) {
  return rc::gen::resize(rc::kNominalSize, rc::gen::inRange<std::size_t>(0, n));
}

// True with probability 1/2; shrinks towards false.
inline rc::Gen<bool> coin() {
  return rc::gen::map(index_below(2), [](std::size_t i) { return i == 1; });
}

}  // namespace mxconform::properties
