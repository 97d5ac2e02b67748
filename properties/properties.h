#pragma once
// The properties of the suite (issue 4). Each checks `subject` on cases drawn from `space` at the
// level of `settings`, as RapidCheck test `id`, and returns the outcome; none uses gtest.
#include <string>
#include <string_view>
#include <vector>

#include "case_gen.h"
#include "mxconform/subject.h"
#include "property_check.h"
#include "run_settings.h"

namespace mxconform::properties {

// Cases per test at the gate: the differential property runs the oracle on every case; the others
// run only the subject, twice or more per case, and afford more.
inline constexpr int kDifferentialGateCases = 100;
inline constexpr int kMetamorphicGateCases = 200;

// Every data and scale byte equals the oracle's, and scale rows no slot names stay unwritten.
PropertyOutcome check_differential(const Subject& subject, const CaseSpace& space, const RunSettings& settings,
                                   const std::string& id);

// Negating every input flips only the sign bits of the codes (NaN under the zero policy included);
// the scales do not change. The one exception the contract makes: Inf in an E8M0-254 block
// (FP4, emax-1) is Inf * +0, the default NaN, whatever its sign.
PropertyOutcome check_sign_symmetry(const Subject& subject, const CaseSpace& space, const RunSettings& settings,
                                    const std::string& id);

// Multiplying a block by 2^k, while every element stays normal and finite, adds k to its E8M0 and
// leaves its codes unchanged, unless the E8M0 is clamped before or after.
PropertyOutcome check_power_of_two_scaling(const Subject& subject, const CaseSpace& space,
                                           const RunSettings& settings, const std::string& id);

// Changing the elements of one block changes no code and no scale byte of any other block.
PropertyOutcome check_block_independence(const Subject& subject, const CaseSpace& space,
                                         const RunSettings& settings, const std::string& id);

// Permuting the elements within each block leaves every scale unchanged and permutes the codes alike.
PropertyOutcome check_permutation_within_block(const Subject& subject, const CaseSpace& space,
                                               const RunSettings& settings, const std::string& id);

// dequantize(quantize(x)) is within half a grid step (at the block's scale) of every finite x that
// neither saturates nor flushes, and exactly +-max times the scale for those that saturate.
PropertyOutcome check_round_trip(const Subject& subject, const CaseSpace& space, const RunSettings& settings,
                                 const std::string& id);

// FP4: for every lane stride the shape allows and both parities, unpacking with that stride and
// parity (impl/fp4_pack.h) returns the codes and scales of the stride-0 quantization. Throws Error
// when `space` holds a dtype other than FP4.
PropertyOutcome check_fp4_packing(const Subject& subject, const CaseSpace& space, const RunSettings& settings,
                                  const std::string& id);

struct PropertyEntry {
  std::string_view name;
  PropertyOutcome (*check)(const Subject&, const CaseSpace&, const RunSettings&, const std::string&);
  bool fp4_only;
};
// All of the above, in the order they are declared.
const std::vector<PropertyEntry>& all_properties();

}  // namespace mxconform::properties
