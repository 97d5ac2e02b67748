/* Test plug-in: the microxcaling profile from its definition. microxcaling: floor(log2 amax) - emax >= -127, ties away. */
#include "profile_backend.h"

static const struct profile_rules kRules = {"profile_microxcaling", MXC_PROFILE_MICROXCALING, 1u << MXC_BLOCK_1X32 | 1u << MXC_BLOCK_32X1, 1, RULE_LOG2_FLOOR, TIES_AWAY, 1, 0, 0};
PROFILE_BACKEND(kRules)
