/* Test plug-in: the torchao-rceil profile from its definition. torchao RCEIL: amax * RN32(1/max) rounded up, no satfinite. */
#include "profile_backend.h"

static const struct profile_rules kRules = {"profile_torchao_rceil", MXC_PROFILE_TORCHAO_RCEIL, 1u << MXC_BLOCK_1X32, 1, RULE_RCEIL, TIES_EVEN, 1, 0, 0};
PROFILE_BACKEND(kRules)
