#pragma once
#include "fault_injection.h"
#include "mxconform/subject.h"

namespace mxconform::impl {
inline namespace MXCONFORM_IMPL_VARIANT {

// The portable scalar implementation, named "scalar": integer bit manipulation, no intrinsics.
// Built with MXCONFORM_FAULT_INJECTION (tests only) it is "scalar-faulty" and runs with the
// planted fault of fault_injection.h.
const Subject& scalar_backend();

}  // namespace MXCONFORM_IMPL_VARIANT
}  // namespace mxconform::impl
