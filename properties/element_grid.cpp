#include "element_grid.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "mxconform/formats.h"

namespace mxconform::properties {
namespace {

template <typename Format>
ElementGrid grid_of() {
  ElementGrid grid;
  for (std::uint32_t code = 0; code <= Format::kMaxCode; ++code) {
    const std::uint32_t exponent = code >> Format::kMantissaBits;
    const std::uint32_t mantissa = code & Format::kMantissaMask;
    const double value = exponent == 0 ? std::ldexp(mantissa, 1 - Format::kBias - Format::kMantissaBits)
                                       : std::ldexp(mantissa | (1u << Format::kMantissaBits),
                                                    static_cast<int>(exponent) - Format::kBias - Format::kMantissaBits);
    grid.values.push_back(value);
  }
  grid.max = Format::kMaxValue;
  grid.top_gap = std::ldexp(1.0, Format::kEmax - Format::kMantissaBits);
  grid.smallest_subnormal = std::ldexp(1.0, Format::kEmin - Format::kMantissaBits);
  grid.smallest_normal = std::ldexp(1.0, Format::kEmin);
  grid.max_code_even = (Format::kMaxCode & 1) == 0;
  return grid;
}

}  // namespace

const ElementGrid& element_grid(ElementKind element) {
  static const ElementGrid kE2m1 = grid_of<E2M1>();
  static const ElementGrid kE4m3 = grid_of<E4M3FN>();
  static const ElementGrid kE5m2 = grid_of<E5M2>();
  switch (element) {
    case ElementKind::kFp4E2m1: return kE2m1;
    case ElementKind::kFp8E4m3fn: return kE4m3;
    case ElementKind::kFp8E5m2: return kE5m2;
  }
  return kE4m3;
}

Bracket bracket(const ElementGrid& grid, double magnitude) {
  const auto above = std::lower_bound(grid.values.begin(), grid.values.end(), magnitude);
  if (above == grid.values.end()) return {grid.max, grid.max};
  if (*above == magnitude || above == grid.values.begin()) return {*above, *above};
  return {*std::prev(above), *above};
}

GridPosition grid_position(const ElementGrid& grid, double magnitude) {
  if (std::isinf(magnitude)) return GridPosition::kInfinite;
  if (magnitude == 0) return GridPosition::kZero;
  if (magnitude > grid.max) {
    const double tie = grid.max + grid.top_gap / 2;
    const bool to_max = magnitude < tie || (magnitude == tie && grid.max_code_even);
    return to_max ? GridPosition::kAboveMaxToMax : GridPosition::kRoundsUpToSaturate;
  }
  if (magnitude == grid.max) return GridPosition::kMax;
  const double half_smallest = grid.smallest_subnormal / 2;
  if (magnitude < half_smallest) return GridPosition::kFlushed;
  if (magnitude == half_smallest) return GridPosition::kTieToZero;
  const Bracket b = bracket(grid, magnitude);
  if (b.below == b.above) return GridPosition::kOnGrid;
  if (magnitude * 2 != b.below + b.above) return GridPosition::kBetween;
  return magnitude < grid.smallest_normal ? GridPosition::kSubnormalTie : GridPosition::kNormalTie;
}

bool is_tie(GridPosition position) {
  return position == GridPosition::kTieToZero || position == GridPosition::kSubnormalTie ||
         position == GridPosition::kNormalTie;
}

}  // namespace mxconform::properties
