/* Test plug-in: the torchao-even profile from its definition. torchao EVEN: the exponent bits of amax plus half an element ulp. */
#include "profile_backend.h"

static const struct profile_rules kRules = {"profile_torchao_even", MXC_PROFILE_TORCHAO_EVEN, 1u << MXC_BLOCK_1X32, 1, RULE_EVEN, TIES_EVEN, 1, 0, 0};
PROFILE_BACKEND(kRules)
