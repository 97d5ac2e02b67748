#pragma once
#include "mxconform/subject.h"

namespace mxconform::impl {

// The AVX2 implementation, named "avx2": needs AVX2, F16C, FMA and BMI2 (checked by the registry
// before it is run). Dequantize delegates to the scalar implementation.
const Subject& avx2_backend();

}  // namespace mxconform::impl
