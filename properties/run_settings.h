#pragma once
// How hard the property suite tests, read once from the environment (properties/README.md):
//   MXCONFORM_PROPERTY_LEVEL   gate (default; the CI gate) or nightly (ten times the cases,
//                              larger tensors, a longer shrink budget)
//   MXCONFORM_PROPERTY_SEED    a number (reruns that search) or "random" (a fresh seed, printed);
//                              default: the fixed gate seed
// A single shrunk failure replays with RapidCheck's own RC_PARAMS="reproduce=...", as printed.
#include <cstdint>
#include <string>
#include <vector>

#include "case_gen.h"
#include "mxconform/subject.h"

namespace mxconform::properties {

enum class Level { kGate, kNightly };

inline constexpr std::uint64_t kGateSeed = 20260404;
inline constexpr double kGateShrinkSeconds = 30;
inline constexpr double kNightlyShrinkSeconds = 120;

struct RunSettings {
  Level level = Level::kGate;
  std::uint64_t seed = kGateSeed;
  bool random_seed = false;
  // Seconds shrinking may take before it stops at the smallest failure found so far.
  double shrink_seconds = kGateShrinkSeconds;

  // Cases for a property that runs `gate_cases` at the gate level; the oracle as a subject runs
  // 2/5 of them.
  int cases(const Subject& subject, int gate_cases) const;
  // Cases of `outputs` for `subject`: up to 128x512 at the gate (256x640 nightly), 32x32 for the
  // oracle, whose exact arithmetic takes microseconds per element.
  CaseSpace space(const Subject& subject, const std::vector<OutputDtype>& outputs) const;
};

// Throws Error naming the variable when a value is not understood.
RunSettings settings_from_environment();

// "level gate, seed 20260404 (fixed)" or "(random)" or "(from MXCONFORM_PROPERTY_SEED)".
std::string describe(const RunSettings& settings);

}  // namespace mxconform::properties
