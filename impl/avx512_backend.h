#pragma once
#include "mxconform/subject.h"

namespace mxconform::impl {

// The AVX-512 implementation, named "avx512": needs AVX-512 BW and VL (which imply F; checked by
// the registry before it is run). Dequantize delegates to the scalar implementation.
const Subject& avx512_backend();

}  // namespace mxconform::impl
