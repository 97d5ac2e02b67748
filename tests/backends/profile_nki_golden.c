/* Test plug-in: the nki-golden profile from its definition. nki-library golden: clip(max field - emaxBias, 0, 255), data divided by the unclamped power of two. */
#include "profile_backend.h"

static const struct profile_rules kRules = {"profile_nki_golden", MXC_PROFILE_NKI_GOLDEN, 1u << MXC_BLOCK_8X4, 0, RULE_GOLDEN, TIES_EVEN, 0, 0, 0};
PROFILE_BACKEND(kRules)
