#pragma once
// `--in-process` and `--timeout SECONDS` of replay and explain, and the subject they open: a
// plug-in or command in certify's worker (certify/isolated_subject.h) unless --in-process.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "mxconform/subject.h"

namespace mxconform::cli {

struct IsolationFlags {
  bool in_process = false;       // load a plug-in into mxconform itself (for gdb), not a worker
  double timeout_seconds = 20;   // per call in a worker: longer is a hang (as certify's)
};

// Adds --in-process and --timeout to `command`; `what_a_failure_is` ends --in-process's help.
void add_isolation_flags(CLI::App* command, IsolationFlags& flags, const std::string& what_a_failure_is);

// The subject `spec` names (open_subject's rules), a plug-in or command in a worker unless
// flags.in_process.
std::shared_ptr<const Subject> open_flagged_subject(const std::string& spec, const IsolationFlags& flags);

}  // namespace mxconform::cli
