#pragma once
// The one exception type mxconform throws for bad input: a malformed file, a broken shape
// rule, an unknown name. Its message is one line that names the file, field or rule.
#include <stdexcept>
#include <string>

namespace mxconform {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace mxconform
