#pragma once
// The value of one input element (bfloat16 or float16 bits), exactly, as a double: every value of
// both formats is a double. For reports and generators; the fast implementations widen with their
// own code (impl/widen.h) and the oracle decodes with its own, so that each is checked against the
// other.
#include <cstdint>

#include "mxconform/dtype.h"

namespace mxconform {

// Signed value of `bits`; +-Inf for the infinities, a quiet NaN (with the input's sign) for NaNs.
double input_value(InputDtype dtype, std::uint16_t bits);

}  // namespace mxconform
