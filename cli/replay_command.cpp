#include "replay_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string_view>

#include "case_replay.h"
#include "corpus_loader.h"
#include "exit_status.h"
#include "mxconform/error.h"
#include "mxconform/registry.h"
#include "mxconform/open_subject.h"
#include "mxconform/safe_text.h"
#include "option_values.h"
#include "text_table.h"

namespace mxconform::cli {
namespace {

using reports::Style;
using reports::styled;

// The subjects to replay against: those named (built-ins, or plug-ins and commands in a worker
// unless --in-process), else every built-in that runs here.
std::vector<std::shared_ptr<const Subject>> subjects(const ReplayOptions& options, bool colour) {
  const std::vector<std::string>& wanted = options.backends;
  std::vector<std::shared_ptr<const Subject>> out;
  if (wanted.empty()) {
    for (const Subject* impl : built_in_subjects()) {
      if (runnable_here(*impl)) {
        out.push_back(open_subject(std::string(impl->name())));
      } else {
        std::cout << styled("SKIPPED", Style::kWarn, colour) << "  backend " << safe_text(impl->name()) << ": needs CPU features "
                  << impl->required_features().to_string() << ", this CPU has " << CpuFeatures::detect().to_string() << "\n";
      }
    }
    return out;
  }
  for (const std::string& name : wanted) out.push_back(open_flagged_subject(name, options.isolation));
  return out;
}

// The word a replay line starts with: every failure outcome is a FAIL, its reason on the next line.
constexpr std::string_view kPassWord = "PASS";
constexpr std::string_view kFailWord = "FAIL";
constexpr std::string_view kUnsupportedWord = "NOT SUPPORTED";

std::string_view verdict_word(Outcome outcome) {
  if (outcome == Outcome::kPass) return kPassWord;
  return outcome == Outcome::kUnsupported ? kUnsupportedWord : kFailWord;
}

Style verdict_style(Outcome outcome) {
  if (outcome == Outcome::kPass) return Style::kGood;
  return outcome == Outcome::kUnsupported ? Style::kWarn : Style::kBad;
}

constexpr std::size_t kMaxDifferences = std::size_t{1} << 20;

std::string padded(std::string_view text, std::size_t width) {
  std::string out(text);
  if (out.size() < width) out.append(width - out.size(), ' ');
  return out;
}

}  // namespace

CLI::App* add_replay_command(CLI::App& app, ReplayOptions& options) {
  CLI::App* command = app.add_subcommand(
      "replay", "Replay corpus cases (YAML files, or directories searched for *.yaml) against implementations");
  command->add_option("paths", options.paths, "Corpus files or directories")->required();
  command->add_option("--backend", options.backends,
                      "The subject to replay against (a built-in, PATH.so or 'cmd:COMMAND'); repeat for several (default: every one this CPU runs)");
  command->add_option_function<std::string>(
      "--max-differences",
      [&options](const std::string& text) {
        options.max_differences = parse_unsigned("--max-differences", text, kMaxDifferences);
      },
      "Differing bytes printed per buffer of a failed case (default 8)");
  command->add_flag("--failures-only", options.failures_only, "Print only failed and not-supported cases");
  add_isolation_flags(command, options.isolation, "a failed case");
  return command;
}

int run_replay(const ReplayOptions& options) {
  const bool colour = reports::colour_wanted(STDOUT_FILENO);
  const std::vector<corpus::CorpusCase> cases = corpus::load_corpus(options.paths);
  const std::vector<std::shared_ptr<const Subject>> backends = subjects(options, colour);
  if (backends.empty()) throw Error("no backend to replay against runs on this CPU");

  std::size_t id_width = 0;
  std::size_t backend_width = 0;
  for (const auto& c : cases) id_width = std::max(id_width, safe_text(c.id).size());
  for (const auto& impl : backends) backend_width = std::max(backend_width, safe_text(impl->name()).size());
  const std::size_t verdict_width = kUnsupportedWord.size();

  std::size_t passed = 0;
  std::size_t unsupported = 0;
  std::vector<std::pair<const corpus::CorpusCase*, const Subject*>> failures;
  for (const auto& impl : backends) {
    for (const corpus::CorpusCase& c : cases) {
      const corpus::ReplayResult result = corpus::replay_case(c, *impl, options.max_differences);
      passed += result.outcome == Outcome::kPass;
      unsupported += result.outcome == Outcome::kUnsupported;
      if (is_failure(result.outcome)) failures.emplace_back(&c, impl.get());
      if (options.failures_only && result.outcome == Outcome::kPass) continue;
      std::cout << styled(padded(verdict_word(result.outcome), verdict_width), verdict_style(result.outcome), colour)
                << "  " << padded(safe_text(impl->name()), backend_width) << "  " << padded(safe_text(c.id), id_width) << "  "
                << safe_text(corpus::to_string(c.location)) << "\n";
      if (result.outcome == Outcome::kUnsupported) std::cout << "    " << safe_text(result.reason) << "\n";
      if (!is_failure(result.outcome)) continue;
      if (!result.reason.empty()) std::cout << "    " << safe_text(result.reason) << "\n";
      const Comparison& comparison = result.comparison;
      for (const Difference& d : comparison.data) std::cout << "    " << corpus::to_string(d) << "\n";
      for (const Difference& d : comparison.scale) std::cout << "    " << corpus::to_string(d) << "\n";
      const Geometry g = geometry(c.config);
      std::cout << "    " << comparison.data_differences << " of " << g.data_bytes << " data bytes and "
                << comparison.scale_differences << " of " << g.scale_bytes << " scale bytes differ; config "
                << describe(c.config) << "\n";
    }
  }
  std::cout << "replay: " << cases.size() << " cases x " << backends.size() << " backends: "
            << styled(std::to_string(passed) + " passed", Style::kGood, colour && passed > 0) << ", "
            << styled(std::to_string(failures.size()) + " failed", Style::kBad, colour && !failures.empty()) << ", "
            << unsupported << " not supported\n";
  if (!failures.empty()) {
    const auto& [c, impl] = failures.front();
    // A command to paste: each word shell-quoted, then escaped for the terminal. explain walks the
    // neuron path only; a case of another profile is shown by replaying it alone.
    if (c->config.profile == ProfileId::kNeuron) {
      std::cout << "explain the first failure: mxconform explain --corpus " << safe_text(shell_word(c->location.file))
                << " --id " << safe_text(shell_word(c->id)) << " --backend " << safe_text(shell_word(impl->name())) << "\n";
    } else {
      std::cout << "the first failure (" << safe_text(c->id) << ") is a " << name(c->config.profile)
                << " case, which explain does not walk: mxconform replay " << safe_text(shell_word(c->location.file))
                << " --backend " << safe_text(shell_word(impl->name())) << "\n";
    }
  }
  return failures.empty() ? kExitSuccess : kExitNegativeVerdict;
}

}  // namespace mxconform::cli
