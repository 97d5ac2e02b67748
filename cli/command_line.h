#pragma once
// Parsing a command's argv with CLI11 and reporting errors, the same way for every command.
#include <optional>
#include <string_view>

#include <CLI/CLI.hpp>

namespace mxconform::cli {

// Prints "mxconform <command>: <kind>: <message>" on stderr, the message through safe_text (one
// line, no control bytes). An empty `command` prints "mxconform: <kind>: ...".
void print_error(std::string_view command, std::string_view message, std::string_view kind = "error");

// Parses argv with `app`. Returns nullopt when the command is to run; otherwise the exit status
// once handled: --help or --version printed (kExitSuccess), or a parse error (an unknown flag, a
// missing or unconvertible value) printed with print_error (kExitError).
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, std::string_view command);

}  // namespace mxconform::cli
