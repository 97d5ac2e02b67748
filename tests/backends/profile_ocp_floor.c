/* Test plug-in: the ocp-floor profile from its definition. torchao FLOOR: field of amax - 127 - emax in [-127, 128], x * 2^(127 - byte) in fp32, RNE, saturating. */
#include "profile_backend.h"

static const struct profile_rules kRules = {"profile_ocp_floor", MXC_PROFILE_OCP_FLOOR, 1u << MXC_BLOCK_1X32, 1, RULE_FLOOR, TIES_EVEN, 1, 0, 0};
PROFILE_BACKEND(kRules)
