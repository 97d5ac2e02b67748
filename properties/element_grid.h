#pragma once
// The grid of an output element format (FP4 e2m1, FP8 e4m3fn, e5m2) as exact doubles, and where a
// prescaled magnitude falls on it (docs/contract.md step 5). Built from the format traits.
#include <cstdint>
#include <vector>

#include "mxconform/dtype.h"

namespace mxconform::properties {

struct ElementGrid {
  std::vector<double> values;  // values[c]: the value of positive code c, for c in [0, max code]
  double max;                  // the largest finite value
  double top_gap;              // distance from the largest finite value to the next binade step
  double smallest_subnormal;
  double smallest_normal;
  bool max_code_even;  // decides the tie just above max (RNE to max, or up and saturate)
};
const ElementGrid& element_grid(ElementKind element);

enum class GridPosition {
  kZero,
  kFlushed,             // below half the smallest subnormal: rounds to zero
  kTieToZero,           // exactly half the smallest subnormal
  kSubnormalTie,        // a tie between two codes below the smallest normal
  kNormalTie,           // a tie between two normal codes
  kOnGrid,              // a code's value, below max
  kMax,                 // exactly the largest finite value
  kBetween,             // anywhere else at or below max
  kAboveMaxToMax,       // above max, rounds down to max
  kRoundsUpToSaturate,  // above max, would round to a code past max: saturates
  kInfinite,
};
// Where |y| falls on the grid; NaN is not a position (callers check first).
GridPosition grid_position(const ElementGrid& grid, double magnitude);

// True for the three kinds of tie: to zero, in the subnormal band, between normal codes.
bool is_tie(GridPosition position);

// The codes' values either side of `magnitude` (<= max): the interval RNE picks from.
struct Bracket {
  double below;
  double above;
};
Bracket bracket(const ElementGrid& grid, double magnitude);

}  // namespace mxconform::properties
