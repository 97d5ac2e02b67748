#pragma once
// `mxconform replay PATH... [--backend NAME]...`: every corpus case through implementations, one
// line per case and implementation.
#include <cstddef>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "isolation_flags.h"

namespace mxconform::cli {

struct ReplayOptions {
  std::vector<std::string> paths;     // corpus files or directories (searched recursively)
  std::vector<std::string> backends;  // empty: every implementation this CPU runs
  std::size_t max_differences = 8;    // differing bytes printed per buffer of a failed case
  bool failures_only = false;         // print PASS lines too unless set
  IsolationFlags isolation;  // --in-process, --timeout
};

// Adds the subcommand to `app`; the options are filled when it is parsed.
CLI::App* add_replay_command(CLI::App& app, ReplayOptions& options);

// Prints the report to stdout, corpus text (ids, file names) through safe_text. Returns
// kExitSuccess when no case failed, kExitNegativeVerdict otherwise. A bad corpus file or an
// unusable backend throws Error before anything runs.
int run_replay(const ReplayOptions& options);

}  // namespace mxconform::cli
