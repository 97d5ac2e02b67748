#include "mxconform/implementation.h"

namespace mxconform {

std::string Implementation::unsupported_reason(const QuantizeConfig&) const { return {}; }

}  // namespace mxconform
