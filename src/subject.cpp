#include "mxconform/subject.h"

namespace mxconform {

Capabilities Subject::capabilities() const { return Capabilities::everything(); }

std::string Subject::unsupported_reason(const QuantizeConfig& config) const {
  const std::string undeclared = capabilities().undeclared(config);
  return undeclared.empty() ? std::string() : "not declared: " + undeclared;
}

}  // namespace mxconform
