#include "coverage.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "element_grid.h"
#include "input_value.h"
#include "mxconform/formats.h"

namespace mxconform::properties {
namespace {

enum class Scope { kAll, kFp8Only, kFp4Only };

struct ClassInfo {
  CoverageClass id;
  std::string_view name;
  Scope scope;
};

constexpr ClassInfo kClasses[] = {
    {CoverageClass::kNormalTie, "tie between normal codes", Scope::kAll},
    {CoverageClass::kSubnormalTie, "tie in the subnormal band", Scope::kAll},
    {CoverageClass::kTieToZero, "tie at half the smallest subnormal", Scope::kAll},
    {CoverageClass::kBelowTie, "one input unit below a tie", Scope::kAll},
    {CoverageClass::kAboveTie, "one input unit above a tie", Scope::kAll},
    {CoverageClass::kExactMax, "exactly +-max", Scope::kAll},
    {CoverageClass::kAboveMaxToMax, "above max, rounds to max", Scope::kAll},
    {CoverageClass::kRoundsUpToSaturate, "saturation by rounding up", Scope::kAll},
    {CoverageClass::kFlushed, "flush to zero (far below)", Scope::kAll},
    {CoverageClass::kNegativeToNegativeZero, "negative value to -0", Scope::kAll},
    {CoverageClass::kInfSaturates, "Inf saturates to +-max", Scope::kAll},
    {CoverageClass::kInfTimesZero, "Inf * 0 at E8M0 254 (default NaN)", Scope::kFp4Only},
    {CoverageClass::kNanElement, "NaN element", Scope::kAll},
    {CoverageClass::kBfloat16Denormal, "bfloat16 denormal input", Scope::kAll},
    {CoverageClass::kFloat16Subnormal, "float16 subnormal input", Scope::kAll},
    {CoverageClass::kNanBlock, "NaN block", Scope::kAll},
    {CoverageClass::kInfBlock, "Inf block", Scope::kAll},
    {CoverageClass::kZeroBlock, "all-zero block", Scope::kAll},
    {CoverageClass::kZeroBlockWithOneNan, "zero block with one NaN", Scope::kAll},
    {CoverageClass::kZeroBlockWithOneInf, "zero block with one Inf", Scope::kAll},
    {CoverageClass::kNanAndInfBlock, "NaN and Inf in one block", Scope::kAll},
    {CoverageClass::kBfloat16DenormalOnlyBlock, "bfloat16-denormal-only block", Scope::kAll},
    {CoverageClass::kFloat16SubnormalOnlyBlock, "float16-subnormal-only block", Scope::kAll},
    {CoverageClass::kZeroFloorBlock, "ZERO-FLOOR block (field == bias)", Scope::kAll},
    {CoverageClass::kClampLowBlock, "CLAMP-LOW block (field < bias)", Scope::kAll},
    {CoverageClass::kE8m0OneUnclamped, "E8M0 1 unclamped", Scope::kAll},
    {CoverageClass::kLargestFiniteE8m0, "largest finite E8M0 of the input", Scope::kAll},
    {CoverageClass::kMixedSignBlock, "mixed-sign block", Scope::kAll},
    {CoverageClass::kBfloat16Input, "bfloat16 input", Scope::kAll},
    {CoverageClass::kFloat16Input, "float16 input", Scope::kAll},
    {CoverageClass::kEmaxMinus1, "emax-1 mode", Scope::kAll},
    {CoverageClass::kNanPolicyZero, "FP8 NaN policy zero", Scope::kFp8Only},
    {CoverageClass::kLogicalLayout, "logical scale layout", Scope::kAll},
    {CoverageClass::kSingleBlock, "a single 8x4 block", Scope::kAll},
    {CoverageClass::kPNotMultipleOf32, "P not a multiple of 32", Scope::kAll},
    {CoverageClass::kLargestShape, "at least 128x512", Scope::kAll},
    {CoverageClass::kLaneStride0, "lane stride 0", Scope::kFp4Only},
    {CoverageClass::kLaneStride1, "lane stride 1", Scope::kFp4Only},
    {CoverageClass::kLaneStride2To7, "lane stride 2..7", Scope::kFp4Only},
    {CoverageClass::kLaneStride8, "lane stride 8", Scope::kFp4Only},
    {CoverageClass::kLaneStride16Up, "lane stride >= 16", Scope::kFp4Only},
    {CoverageClass::kHighParity0, "high parity 0", Scope::kFp4Only},
};
static_assert(std::size(kClasses) == kCoverageClasses);

constexpr std::size_t kLargestShapePartitions = 128;
constexpr std::size_t kLargestShapeFree = 512;
constexpr std::size_t kTileRows = 32;  // the hardware tile's P granularity

const ClassInfo& info_of(CoverageClass id) { return kClasses[static_cast<std::size_t>(id)]; }

CoverageClass element_class(GridPosition position) {
  switch (position) {
    case GridPosition::kNormalTie: return CoverageClass::kNormalTie;
    case GridPosition::kSubnormalTie: return CoverageClass::kSubnormalTie;
    case GridPosition::kTieToZero: return CoverageClass::kTieToZero;
    case GridPosition::kMax: return CoverageClass::kExactMax;
    case GridPosition::kAboveMaxToMax: return CoverageClass::kAboveMaxToMax;
    case GridPosition::kRoundsUpToSaturate: return CoverageClass::kRoundsUpToSaturate;
    case GridPosition::kFlushed: return CoverageClass::kFlushed;
    default: return CoverageClass::kCount;  // no class of its own
  }
}

CoverageClass stride_class(std::uint32_t stride) {
  constexpr std::uint32_t kStrideEight = 8;
  if (stride == 0) return CoverageClass::kLaneStride0;
  if (stride == 1) return CoverageClass::kLaneStride1;
  if (stride < kStrideEight) return CoverageClass::kLaneStride2To7;
  if (stride == kStrideEight) return CoverageClass::kLaneStride8;
  return stride >= 2 * kStrideEight ? CoverageClass::kLaneStride16Up : CoverageClass::kCount;
}

using Hits = std::array<std::size_t, kCoverageClasses + 1>;  // the extra slot swallows kCount

void hit(Hits& hits, CoverageClass id) { ++hits[static_cast<std::size_t>(id)]; }

// The prescaled magnitude of a finite element at `e8m0` (docs/contract.md step 4; M = +0 at 254).
double prescaled(double magnitude, int e8m0) {
  return e8m0 == kZeroMultiplierE8m0 ? 0.0 : std::ldexp(magnitude, Float32::kBias - e8m0);
}

void classify_block(const QuantizeCase& c, std::size_t g, std::size_t col, Hits& hits) {
  const QuantizeConfig& config = c.config;
  const InputDtype input = config.input;
  const ElementGrid& grid = element_grid(info(config.output).element);
  const int bias = emax_bias(config);
  std::uint16_t bits[kBlockSize];
  int max_field = 0;
  bool positive = false, negative = false;
  std::size_t nans = 0, infs = 0, finite_non_zero = 0, subnormals = 0;
  for (std::size_t k = 0; k < kBlockSize; ++k) {
    bits[k] = c.input[element_index(config, g, col, k)];
    max_field = std::max(max_field, fp32_exponent_field(input, bits[k]));
    nans += is_nan(input, bits[k]);
    infs += is_inf(input, bits[k]);
    const double value = value_of(input, bits[k]);
    positive = positive || value > 0;
    negative = negative || value < 0;
    const bool finite_value = !is_nan(input, bits[k]) && !is_inf(input, bits[k]) && value != 0;
    finite_non_zero += finite_value;
    subnormals += finite_value && is_zero_or_subnormal(input, bits[k]);
  }
  const bool nan = nans > 0, inf = infs > 0;
  const int shifted = max_field - bias;
  const int e8m0 = std::max(1, std::max(0, shifted));
  const int largest_finite_field =
      input == InputDtype::kBfloat16 ? Float32::kExponentFieldMax - 1 : Float32::kBias + Float16::kEmax;
  if (nan) hit(hits, CoverageClass::kNanBlock);
  if (inf) hit(hits, CoverageClass::kInfBlock);
  if (!positive && !negative && !nan && !inf) hit(hits, CoverageClass::kZeroBlock);
  if (finite_non_zero == 0 && nans == 1 && infs == 0) hit(hits, CoverageClass::kZeroBlockWithOneNan);
  if (finite_non_zero == 0 && nans == 0 && infs == 1) hit(hits, CoverageClass::kZeroBlockWithOneInf);
  if (nan && inf) hit(hits, CoverageClass::kNanAndInfBlock);
  if (subnormals > 0 && subnormals == finite_non_zero && !nan && !inf) {
    hit(hits, input == InputDtype::kBfloat16 ? CoverageClass::kBfloat16DenormalOnlyBlock
                                             : CoverageClass::kFloat16SubnormalOnlyBlock);
  }
  if (positive && negative) hit(hits, CoverageClass::kMixedSignBlock);
  if (shifted == 0) hit(hits, CoverageClass::kZeroFloorBlock);
  if (shifted < 0) hit(hits, CoverageClass::kClampLowBlock);
  if (shifted == 1) hit(hits, CoverageClass::kE8m0OneUnclamped);
  if (max_field == largest_finite_field) hit(hits, CoverageClass::kLargestFiniteE8m0);

  auto position_of = [&](std::uint16_t b) {
    return grid_position(grid, prescaled(std::fabs(value_of(input, b)), e8m0));
  };
  for (std::uint16_t b : bits) {
    if (is_nan(input, b)) {
      hit(hits, CoverageClass::kNanElement);
      continue;
    }
    if (is_inf(input, b)) {
      hit(hits, e8m0 == kZeroMultiplierE8m0 ? CoverageClass::kInfTimesZero : CoverageClass::kInfSaturates);
      continue;
    }
    if (is_zero_or_subnormal(input, b) && value_of(input, b) != 0) {
      hit(hits, input == InputDtype::kBfloat16 ? CoverageClass::kBfloat16Denormal : CoverageClass::kFloat16Subnormal);
    }
    const GridPosition position = position_of(b);
    hit(hits, element_class(position));
    if (is_negative(input, b) && value_of(input, b) != 0 &&
        (position == GridPosition::kFlushed || position == GridPosition::kTieToZero)) {
      hit(hits, CoverageClass::kNegativeToNegativeZero);
    }
    const auto up = nudge(input, b, +1);
    const auto down = nudge(input, b, -1);
    if (up && !is_inf(input, *up) && is_tie(position_of(*up))) hit(hits, CoverageClass::kBelowTie);
    if (down && is_tie(position_of(*down))) hit(hits, CoverageClass::kAboveTie);
  }
}

}  // namespace

std::string_view name(CoverageClass id) { return info_of(id).name; }

bool applies(CoverageClass id, OutputDtype output) {
  switch (info_of(id).scope) {
    case Scope::kAll: return true;
    case Scope::kFp8Only: return !is_fp4(output);
    case Scope::kFp4Only: return is_fp4(output);
  }
  return false;
}

std::vector<CoverageClass> applicable_classes(const CaseSpace& space) {
  const bool largest_shape = space.max_block_rows * kBlockRows >= kLargestShapePartitions &&
                             space.max_block_cols * kBlockCols >= kLargestShapeFree;
  std::vector<CoverageClass> classes;
  for (const ClassInfo& c : kClasses) {
    const bool any = std::any_of(space.outputs.begin(), space.outputs.end(),
                                 [&](OutputDtype output) { return applies(c.id, output); });
    if (!any || (c.id == CoverageClass::kLargestShape && !largest_shape)) continue;
    classes.push_back(c.id);
  }
  return classes;
}

void Coverage::add(const QuantizeCase& c) {
  const QuantizeConfig& config = c.config;
  Hits hits{};
  hit(hits, config.input == InputDtype::kBfloat16 ? CoverageClass::kBfloat16Input : CoverageClass::kFloat16Input);
  if (config.emax_mode == EmaxMode::kEmaxMinus1) hit(hits, CoverageClass::kEmaxMinus1);
  if (config.fp8_nan == Fp8NanPolicy::kZero) hit(hits, CoverageClass::kNanPolicyZero);
  if (config.scale_layout == ScaleLayout::kLogical) hit(hits, CoverageClass::kLogicalLayout);
  if (config.partitions == kBlockRows && config.free == kBlockCols) hit(hits, CoverageClass::kSingleBlock);
  if (config.partitions % kTileRows != 0) hit(hits, CoverageClass::kPNotMultipleOf32);
  if (config.partitions >= kLargestShapePartitions && config.free >= kLargestShapeFree) {
    hit(hits, CoverageClass::kLargestShape);
  }
  hit(hits, stride_class(config.fp4_lane_stride));
  if (config.fp4_high_parity == 0) hit(hits, CoverageClass::kHighParity0);
  const Geometry g = geometry(config);
  for (std::size_t row = 0; row < g.block_rows; ++row) {
    for (std::size_t col = 0; col < g.block_cols; ++col) classify_block(c, row, col, hits);
  }
  ++cases_;
  for (std::size_t i = 0; i < kCoverageClasses; ++i) {
    if (!applies(static_cast<CoverageClass>(i), config.output)) continue;
    hits_[i] += hits[i];
    if (hits[i] != 0) ++cases_hitting_[i];
  }
}

std::vector<CoverageClass> Coverage::missed(const std::vector<CoverageClass>& promised) const {
  std::vector<CoverageClass> none;
  for (CoverageClass id : promised) {
    if (cases_hitting(id) == 0) none.push_back(id);
  }
  return none;
}

std::string Coverage::table(const std::vector<CoverageClass>& shown, const std::vector<CoverageClass>& promised) const {
  std::string out = "coverage over " + std::to_string(cases_) + " cases (promised classes marked *)\n";
  char line[128];
  std::snprintf(line, sizeof line, "  %-38s %8s %10s\n", "class", "cases", "hits");
  out += line;
  for (CoverageClass id : shown) {
    const bool is_promised = std::find(promised.begin(), promised.end(), id) != promised.end();
    std::snprintf(line, sizeof line, "%c %-38s %8zu %10zu%s\n", is_promised ? '*' : ' ', std::string(name(id)).c_str(),
                  cases_hitting(id), hits(id), is_promised && cases_hitting(id) == 0 ? "  MISSED" : "");
    out += line;
  }
  return out;
}

}  // namespace mxconform::properties
