#pragma once
#include "mxconform/implementation.h"

namespace mxconform::impl {

// The portable scalar implementation, named "scalar": integer bit manipulation, no intrinsics.
const Implementation& scalar_backend();

}  // namespace mxconform::impl
