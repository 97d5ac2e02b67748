#pragma once
// Block-class cases: for one configuration, the block and element classes of the contract that
// the configuration can reach (promised_classes), and single-block cases that together hit every
// one of them (class_cases). A plain seeded API, no RapidCheck state: certify runs these first in
// its property campaign, so every declared configuration meets every class at every level.
#include <cstdint>
#include <vector>

#include "coverage.h"
#include "quantize_case.h"

namespace mxconform::properties {

// The classes `config` can reach: every block class (all-zero, zero with one NaN or one Inf, NaN
// and Inf together, denormal-only for the input dtype, ZERO-FLOOR, CLAMP-LOW and E8M0 1 where the
// input dtype reaches them, the largest E8M0) and element class (ties, one unit either side,
// saturation in EMAX mode, flush, NaN, Inf). Configuration and shape classes are not included.
std::vector<CoverageClass> promised_classes(const QuantizeConfig& config);

// One 8x4 block per case, `config`'s knobs (a lane stride the block does not allow becomes 0),
// chosen greedily from hand-built blocks and a seeded search over block recipes until the
// coverage classifier counts every promised class. Deterministic for a seed. The cases' classes
// are what the classifier says, never assumed: check with Coverage::missed.
std::vector<QuantizeCase> class_cases(const QuantizeConfig& config, std::uint64_t seed);

}  // namespace mxconform::properties
