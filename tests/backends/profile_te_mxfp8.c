/* Test plug-in: the transformer-engine-mxfp8 profile from its definition. TransformerEngine MXFP8: RCEIL satfinite, NaN dropped from amax, Inf -> 0xFE, data times 2^(127 - byte) as an fp32 (2^127 at byte 0). */
#include "profile_backend.h"

static const struct profile_rules kRules = {"profile_te_mxfp8", MXC_PROFILE_TRANSFORMER_ENGINE_MXFP8, 1u << MXC_BLOCK_1X32 | 1u << MXC_BLOCK_32X1, 0, RULE_RCEIL_SATFINITE, TIES_EVEN, 0, 1, 0};
PROFILE_BACKEND(kRules)
