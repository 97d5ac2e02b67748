#pragma once
#include "mxconform/subject.h"

namespace mxconform::impl {

// The AVX-512 implementation, named "avx512": needs AVX-512 BW and VL (which imply F; checked by
// the registry before it is run). Dequantize delegates to the scalar implementation.
const Subject& avx512_backend();

// The same kernel source compiled on SIMDe's portable AVX-512 (built with -DMXCONFORM_AVX512_SIMDE
// for AVX2 + F16C; only the test plug-in tests/backends/avx512_simde.cpp defines it), named
// "avx512-simde": the avx512 kernel's logic checked on a CPU without AVX-512.
const Subject& avx512_simde_backend();

}  // namespace mxconform::impl
