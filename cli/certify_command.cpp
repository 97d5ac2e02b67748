// `mxconform certify` and `mxconform merge`.
#include "certify_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <algorithm>
#include <filesystem>
#include <optional>

#include <CLI/CLI.hpp>

#include "build_info.h"
#include "certification.h"
#include "command_line.h"
#include "exit_status.h"
#include "knob_flags.h"
#include "mxconform/atomic_file.h"
#include "mxconform/error.h"
#include "mxconform/safe_text.h"
#include "option_values.h"

namespace mxconform::cli {
namespace {

// Text from a certificate (a backend's messages, a shard file's strings) as printed on stdout.

// A progress bar on a terminal, plain lines otherwise.
class Progress {
 public:
  Progress() : tty_(::isatty(STDERR_FILENO) != 0) {}
  void operator()(const std::string& stage, std::size_t done, std::size_t total) {
    if (tty_) {
      constexpr int kWidth = 30;
      const int filled = total == 0 ? kWidth : static_cast<int>(kWidth * done / total);
      std::fprintf(stderr, "\r%-10s [%.*s%*s] %zu/%zu", stage.c_str(), filled, "##############################",
                   kWidth - filled, "", done, total);
      if (done == total) std::fprintf(stderr, "\n");
    } else if (done == total || stage != last_stage_) {
      std::fprintf(stderr, "certify: %s %zu/%zu\n", stage.c_str(), done, total);
    }
    last_stage_ = stage;
    std::fflush(stderr);
  }

 private:
  bool tty_;
  std::string last_stage_;
};

}  // namespace

int run_certify(int argc, char** argv) {
  CLI::App app{"Certify a backend against the oracle: the corpus, the exhaustive element campaign and generated "
               "property cases, each call in an isolated worker process",
               "mxconform certify"};
  certify::CertifyOptions options;
  std::string level = "gate";
  std::string seed, timeout, memory_limit, shard;
  KnobFlags knob_flags;
  std::string report_path, junit_path;
  std::vector<std::string> campaigns;
  bool force = false;
  app.add_option("--backend", options.backend, "A built-in backend (see `mxconform backends`), a path to a shared "
                                               "library exporting mxconform_backend_v1, or 'cmd:COMMAND ARGS', a command "
                                               "speaking the subject protocol (docs/subject-protocol.md)")->required();
  app.add_option("--level", level, "gate (CI, minutes), nightly or soak");
  CLI::Option* seed_option = app.add_option("--seed", seed, "Seed of the generated cases (printed in the certificate)");
  knob_flags.add_to(app, "certified");
  app.add_flag("--all-knobs", options.all_knobs, "Certify every knob combination the backend declares");
  app.add_option("--campaign", campaigns, "Run only these campaigns: corpus, exhaustive, properties (repeatable)");
  app.add_option("--corpus", options.corpus_paths, "More corpus files or directories, run after mxconform's corpus");
  bool only_corpus = false, no_failure_database = false;
  app.add_flag("--only-corpus", only_corpus, "Run only the --corpus files, not mxconform's corpus");
  CLI::Option* database_option = app.add_option(
      "--failure-database", options.failure_database_dir,
      "Directory of past failures' repros, replayed first and added to (default: "
      "$XDG_CACHE_HOME/mxconform/failures/<backend>, else ~/.cache/mxconform/failures/<backend>)");
  app.add_flag("--no-failure-database", no_failure_database, "Neither replay nor record past failures");
  CLI::Option* timeout_option = app.add_option(
      "--timeout", timeout, "Per-call timeout in seconds before a call counts as a hang: more than 0, at most 86400 "
                            "(default 20)");
  CLI::Option* memory_limit_option = app.add_option(
      "--memory-limit", memory_limit, "Worker address-space limit: bytes with an optional K, M, G or T suffix "
                                      "(powers of 1024), 0 for no limit (default 8G)");
  app.add_option("--report", report_path, "Write the certificate (YAML) here");
  app.add_option("--junit", junit_path, "Write JUnit XML here");
  app.add_option("--emit-repro", options.emit_repro_dir, "Write each failure's minimal repro as a corpus file here");
  CLI::Option* shard_option = app.add_option(
      "--shard", shard, "Run shard I of N (I/N); GTEST_SHARD_INDEX and GTEST_TOTAL_SHARDS also work");
  app.add_flag("--force", force, "Overwrite existing report files (regular files only)");
  if (const std::optional<int> status = parse_command_line(app, argc, argv, "certify")) return *status;

  // Every value is checked before any work, each error one line naming its flag.
  options.level = certify::parse_level(level);
  if (seed_option->count() > 0) options.seed = parse_unsigned("--seed", seed, UINT64_MAX);
  options.knobs = knob_flags.knobs();
  options.named_knobs = knob_flags.named();
  if (options.all_knobs) knob_flags.refuse_with_all_knobs();
  if (timeout_option->count() > 0) options.timeout_seconds = parse_timeout_seconds("--timeout", timeout);
  if (memory_limit_option->count() > 0) options.memory_limit_bytes = parse_byte_size("--memory-limit", memory_limit);
  if (!campaigns.empty()) {
    for (const auto& c : campaigns) {
      if (c != "corpus" && c != "exhaustive" && c != "properties") {
        throw Error("--campaign " + c + ": expected corpus, exhaustive or properties");
      }
    }
    options.campaigns = campaigns;
  }
  if (only_corpus && options.corpus_paths.empty()) throw Error("--only-corpus: give the corpus with --corpus PATH");
  if (!only_corpus) {
    // mxconform's corpus first; a --corpus path inside it is in it already (its ids would repeat).
    namespace fs = std::filesystem;
    const std::string builtin = certify::default_corpus_directory();
    std::error_code error;
    const fs::path root = fs::weakly_canonical(builtin, error);
    const auto inside_builtin = [&](const std::string& path) {
      std::error_code ignored;
      const fs::path p = fs::weakly_canonical(path, ignored);
      const auto mismatch = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
      return !error && !ignored && mismatch.first == root.end();
    };
    auto& paths = options.corpus_paths;
    paths.erase(std::remove_if(paths.begin(), paths.end(), inside_builtin), paths.end());
    paths.insert(paths.begin(), builtin);
  }
  if (no_failure_database && database_option->count() > 0) {
    throw Error("--failure-database and --no-failure-database: choose one");
  }
  if (database_option->count() > 0 && options.failure_database_dir.empty()) {
    throw Error("--failure-database: expected a directory, got an empty path");
  }
  options.failure_database = !no_failure_database;
  const Shard slice = shard_option->count() > 0 ? parse_shard("--shard", shard) : shard_from_environment();
  options.shard_index = slice.index;
  options.shard_count = slice.count;
  std::vector<std::string> inputs = options.corpus_paths;
  if (options.backend.find('/') != std::string::npos) inputs.push_back(options.backend);
  std::vector<std::string> outputs;
  for (const std::string& path : {report_path, junit_path}) {
    if (!path.empty()) outputs.push_back(path);
  }
  check_output_paths(inputs, outputs, force);

  Progress progress;
  options.progress = [&progress](const std::string& stage, std::size_t done, std::size_t total) {
    progress(stage, done, total);
  };
  std::fprintf(stderr, "mxconform certify: backend %s, level %s, seed %llu, shard %zu/%zu%s\n",
               safe_text(options.backend).c_str(), level.c_str(), static_cast<unsigned long long>(options.seed),
               options.shard_index, options.shard_count, options.all_knobs ? ", all declared knobs" : "");
  const certify::Certificate certificate = certify::run_certification(options);
  const std::string yaml = certify::to_yaml(certificate);
  if (!report_path.empty()) write_file_atomically(report_path, yaml, force);
  if (!junit_path.empty()) write_file_atomically(junit_path, certify::to_junit(certificate), force);
  // verdict_table escapes what came from the backend or a corpus file itself.
  std::cout << certify::verdict_table(certificate);
  return certificate.certified() ? kExitSuccess : kExitNegativeVerdict;
}

int run_merge(int argc, char** argv) {
  CLI::App app{"Merge the certificates of the shards of one campaign into one", "mxconform merge"};
  std::vector<std::string> inputs;
  std::string output, junit;
  bool force = false;
  app.add_option("certificates", inputs, "Shard certificates (YAML)")->required();
  app.add_option("--output", output, "Write the merged certificate here")->required();
  app.add_option("--junit", junit, "Also write JUnit XML here");
  app.add_flag("--force", force, "Overwrite existing files (regular files only)");
  if (const std::optional<int> status = parse_command_line(app, argc, argv, "merge")) return *status;
  std::vector<std::string> outputs = {output};
  if (!junit.empty()) outputs.push_back(junit);
  check_output_paths(inputs, outputs, force);
  std::vector<certify::Certificate> shards;
  for (const std::string& path : inputs) shards.push_back(certify::read_certificate(path));
  const certify::Certificate merged = certify::merge(shards);
  write_file_atomically(output, certify::to_yaml(merged), force);
  if (!junit.empty()) write_file_atomically(junit, certify::to_junit(merged), force);
  std::cout << certify::verdict_table(merged);
  return merged.certified() ? kExitSuccess : kExitNegativeVerdict;
}

}  // namespace mxconform::cli
