#include "mxconform/implementation.h"

namespace mxconform {

Capabilities Implementation::capabilities() const { return Capabilities::everything(); }

std::string Implementation::unsupported_reason(const QuantizeConfig& config) const {
  const std::string undeclared = capabilities().undeclared(config);
  return undeclared.empty() ? std::string() : "not declared: " + undeclared;
}

}  // namespace mxconform
