// `mxconform fingerprint`.
#include "fingerprint_command.h"

#include <iostream>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "command_line.h"
#include "exit_status.h"
#include "fingerprint.h"
#include "option_values.h"

namespace mxconform::cli {

int run_fingerprint(int argc, char** argv) {
  CLI::App app{"Name the contract a backend implements: run a small fixed set of deciding cases and print, per "
               "axis, what the backend did, then the profile and knob values that match every case",
               "mxconform fingerprint"};
  std::string backend, timeout;
  app.add_option("--backend", backend, "A built-in backend or a path to a shared library exporting mxconform_backend_v1")
      ->required();
  CLI::Option* timeout_option = app.add_option("--timeout", timeout, "Per-call timeout in seconds (default 20)");
  if (const std::optional<int> status = parse_command_line(app, argc, argv, "fingerprint")) return *status;
  certify::WorkerLimits limits;
  if (timeout_option->count() > 0) limits.timeout_seconds = parse_timeout_seconds("--timeout", timeout);
  const certify::Fingerprint fingerprint = certify::take_fingerprint(backend, limits);
  std::cout << certify::to_text(fingerprint);
  return fingerprint.decided() ? kExitSuccess : kExitNegativeVerdict;
}

}  // namespace mxconform::cli
