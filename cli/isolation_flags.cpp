#include "isolation_flags.h"

#include <string>

#include "isolated_subject.h"
#include "mxconform/open_subject.h"
#include "option_values.h"

namespace mxconform::cli {

void add_isolation_flags(CLI::App* command, IsolationFlags& flags, const std::string& what_a_failure_is) {
  command->add_flag("--in-process", flags.in_process,
                    "Load a plug-in into mxconform itself (to debug it under gdb); by default plug-ins and commands run in "
                    "an isolated worker, where a crash or hang is " + what_a_failure_is);
  command->add_option_function<std::string>(
      "--timeout", [&flags](const std::string& text) { flags.timeout_seconds = parse_timeout_seconds("--timeout", text); },
      "Per-call timeout in seconds of a subject in a worker before it counts as a hang (default " +
          std::to_string(static_cast<long long>(flags.timeout_seconds)) + ")");
}

std::shared_ptr<const Subject> open_flagged_subject(const std::string& spec, const IsolationFlags& flags) {
  if (flags.in_process) return open_subject(spec);
  certify::WorkerLimits limits;
  limits.timeout_seconds = flags.timeout_seconds;
  return certify::open_isolated_subject(spec, limits);
}

}  // namespace mxconform::cli
