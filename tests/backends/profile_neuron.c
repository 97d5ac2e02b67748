/* Test plug-in: the neuron contract from its definition (docs/contract.md steps 1-7), in C, apart from the scalar and the oracle. Both clamps, field 255 wins, the multiplier from the bits (+0.0 at E8M0 254), RNE, saturating; FP8 NaN canonical, FP4 stride 0 and parity 1 only. */
#include "profile_backend.h"

static const struct profile_rules kRules = {"profile_neuron", MXC_PROFILE_NEURON, 1u << MXC_BLOCK_8X4, 1, RULE_NEURON, TIES_EVEN, 0, 0, 0};
PROFILE_BACKEND(kRules)
