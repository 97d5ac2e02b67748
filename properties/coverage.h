#pragma once
// Coverage classes: what a generated case reaches (a tie in the e4m3 subnormal band, saturation by
// rounding up, a NaN block, a ZERO-FLOOR block, a float16 subnormal input, lane stride 8, ...),
// counted over a run and printed as a table. A level promises classes; a run that never hits a
// promised class fails. Classified from the input and configuration alone, with the suite's own
// doubles (input_value.h, element_grid.h): not from any implementation's output.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "case_gen.h"
#include "quantize_case.h"

namespace mxconform::properties {

enum class CoverageClass {
  // Elements, at their block's E8M0.
  kNormalTie,
  kSubnormalTie,
  kTieToZero,
  kBelowTie,  // one input unit below a tie
  kAboveTie,  // one input unit above a tie
  kExactMax,
  kAboveMaxToMax,       // above max, rounds down to max
  kRoundsUpToSaturate,  // above max, rounds past it: saturates
  kFlushed,             // below half the smallest subnormal
  kNegativeToNegativeZero,
  kInfSaturates,
  kInfTimesZero,  // FP4 emax-1, E8M0 254: M = +0 and Inf * 0 is the default NaN
  kNanElement,
  kBfloat16Denormal,
  kFloat16Subnormal,
  // Blocks.
  kNanBlock,
  kInfBlock,
  kZeroBlock,
  kZeroBlockWithOneNan,  // 31 zeros and one NaN
  kZeroBlockWithOneInf,  // 31 zeros and one Inf
  kNanAndInfBlock,       // a NaN and an Inf in one block
  kBfloat16DenormalOnlyBlock,   // every non-zero element a bfloat16 denormal (at least one)
  kFloat16SubnormalOnlyBlock,   // every non-zero element a float16 subnormal (at least one)
  kZeroFloorBlock,     // maxExpField == emaxBias: E8M0 0 bumped to 1
  kClampLowBlock,      // maxExpField < emaxBias: negative, floored to 0, bumped to 1
  kE8m0OneUnclamped,   // maxExpField == emaxBias + 1
  kLargestFiniteE8m0,  // the largest E8M0 a finite block of the input dtype gets
  kMixedSignBlock,
  // Configuration and shape.
  kBfloat16Input,
  kFloat16Input,
  kEmaxMinus1,
  kNanPolicyZero,
  kLogicalLayout,
  kSingleBlock,
  kPNotMultipleOf32,
  kLargestShape,  // at least 128 x 512
  kLaneStride0,
  kLaneStride1,
  kLaneStride2To7,
  kLaneStride8,
  kLaneStride16Up,
  kHighParity0,
  kCount
};
inline constexpr std::size_t kCoverageClasses = static_cast<std::size_t>(CoverageClass::kCount);

std::string_view name(CoverageClass id);
// False for classes the output dtype cannot reach (FP4 knobs for FP8, the NaN policy for FP4, ...).
bool applies(CoverageClass id, OutputDtype output);
// Every class that applies to one of the space's output dtypes; kLargestShape only when the
// space reaches 128x512.
std::vector<CoverageClass> applicable_classes(const CaseSpace& space);

// Counts over the cases of one run.
class Coverage {
 public:
  void add(const QuantizeCase& c);
  std::size_t cases() const { return cases_; }
  std::size_t cases_hitting(CoverageClass id) const { return cases_hitting_[static_cast<std::size_t>(id)]; }
  std::size_t hits(CoverageClass id) const { return hits_[static_cast<std::size_t>(id)]; }
  // The promised classes with no hit, in table order.
  std::vector<CoverageClass> missed(const std::vector<CoverageClass>& promised) const;
  // One line per class of `shown`: name, cases that hit it, hits (elements, blocks or cases), and
  // "MISSED" for a promised class with none.
  std::string table(const std::vector<CoverageClass>& shown, const std::vector<CoverageClass>& promised) const;

 private:
  std::size_t cases_ = 0;
  std::array<std::size_t, kCoverageClasses> cases_hitting_{};
  std::array<std::size_t, kCoverageClasses> hits_{};
};

}  // namespace mxconform::properties
