/* Test plug-in: the torchao-ceil profile from its definition. torchao CEIL: the exponent bits of amax, plus one when its mantissa is not zero. */
#include "profile_backend.h"

static const struct profile_rules kRules = {"profile_torchao_ceil", MXC_PROFILE_TORCHAO_CEIL, 1u << MXC_BLOCK_1X32, 1, RULE_CEIL, TIES_EVEN, 1, 0, 0};
PROFILE_BACKEND(kRules)
