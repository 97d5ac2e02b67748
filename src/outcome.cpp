#include "mxconform/outcome.h"

namespace mxconform {

const char* name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass: return "pass";
    case Outcome::kWrongResult: return "wrong-result";
    case Outcome::kCrash: return "crash";
    case Outcome::kHang: return "hang";
    case Outcome::kWritePastEnd: return "write-past-end";
    case Outcome::kWriteBeforeStart: return "write-before-start";
    case Outcome::kWriteIntoInput: return "write-into-input";
    case Outcome::kWriteUnnamedScaleRow: return "write-unnamed-scale-row";
    case Outcome::kError: return "error";
    case Outcome::kUnsupported: return "not-supported";
    case Outcome::kNondeterministic: return "nondeterministic";
    case Outcome::kProtocolError: return "protocol-error";
    case Outcome::kStrayOutput: return "stray-output";
    case Outcome::kWrongSize: return "wrong-size";
    case Outcome::kMissingOutput: return "missing-output";
    case Outcome::kMalformedOutput: return "malformed-output";
  }
  return "?";
}

bool is_failure(Outcome outcome) { return outcome != Outcome::kPass && outcome != Outcome::kUnsupported; }

}  // namespace mxconform
