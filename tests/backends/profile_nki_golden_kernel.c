/* Test plug-in: the nki-golden-kernel profile from its definition. The alternative-EMAX kernel reference: the unclipped exponent stored as a uint8 (it wraps), EMAX-1 only, FP8 only. */
#include "profile_backend.h"

static const struct profile_rules kRules = {"profile_nki_golden_kernel", MXC_PROFILE_NKI_GOLDEN_KERNEL, 1u << MXC_BLOCK_8X4, 0, RULE_GOLDEN_KERNEL, TIES_EVEN, 0, 0, 1};
PROFILE_BACKEND(kRules)
