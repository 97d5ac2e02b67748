#pragma once
// The exit status of every mxconform command but bench (README, "Using the CLI").
namespace mxconform::cli {

enum ExitStatus : int {
  kExitSuccess = 0,          // done: outputs written, certified, every case passed; --help, --version
  kExitError = 1,            // stopped before a verdict: bad usage, a bad or unreadable file, a refused output
  kExitNegativeVerdict = 2,  // a verdict was reached and it is negative: not certified, a case failed
  kExitInternalError = 3,    // a bug in mxconform
};

}  // namespace mxconform::cli
