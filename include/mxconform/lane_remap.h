#pragma once
// The FP4 nibble-lane permutation (docs/contract.md step 6), written as the seed's formula.
#include <cstddef>

namespace mxconform {

// Nibble position of flattened element k for lane stride s >= 1. Within each window of 2s
// nibbles it reverses the order of nibble pairs; it is an involution on [0, n) whenever
// n % (2s) == 0.
constexpr std::size_t lane_remap(std::size_t k, std::size_t stride) {
  const std::size_t window = 2 * stride;
  const std::size_t q = k / window;
  const std::size_t r = k % window;
  std::size_t result = window * (q + 1) - r;
  if ((k & 1) == 0) result -= 2;
  return result;
}

}  // namespace mxconform
