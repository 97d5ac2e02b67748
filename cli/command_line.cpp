#include "command_line.h"

#include <cstdio>
#include <string>
#include <vector>

#include "exit_status.h"
#include "mxconform/safe_text.h"

namespace mxconform::cli {

void print_error(std::string_view command, std::string_view message, std::string_view kind) {
  const std::string prefix = command.empty() ? "mxconform" : "mxconform " + std::string(command);
  std::fprintf(stderr, "%s: %s: %s\n", safe_text(prefix).c_str(), std::string(kind).c_str(), safe_text(message).c_str());
}

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, std::string_view command) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& help_or_version) {
    app.exit(help_or_version);
    return kExitSuccess;
  } catch (const CLI::ParseError& error) {
    // CLI11 checks required options before it reports arguments it does not know; the unknown
    // argument is the better message (`quantize --inptu X` says so, not that --input is missing).
    const std::vector<std::string> unknown = app.remaining(true);
    if (unknown.empty()) {
      print_error(command, error.what());
    } else {
      std::string listed;
      for (const std::string& argument : unknown) listed += (listed.empty() ? "'" : ", '") + argument + "'";
      print_error(command, (unknown.size() == 1 ? "unknown argument " : "unknown arguments ") + listed);
    }
    return kExitError;
  }
  return std::nullopt;
}

}  // namespace mxconform::cli
