// `mxconform export` and `mxconform grade`.
#include "bundle_command.h"

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>

#include "bundle.h"
#include "command_line.h"
#include "exit_status.h"
#include "knob_flags.h"
#include "mxconform/atomic_file.h"
#include "mxconform/error.h"
#include "mxconform/safe_text.h"
#include "option_values.h"

namespace mxconform::cli {

int run_export(int argc, char** argv) {
  CLI::App app{"Write every case of the certify campaigns as .npy inputs and a manifest, for a runner on a machine "
               "mxconform cannot drive; `mxconform grade` grades what it writes back",
               "mxconform export"};
  certify::ExportOptions options;
  std::string level = "gate", seed;
  KnobFlags knob_flags;
  app.add_option("--out", options.directory, "The bundle directory: new, or empty (see --force)")->required();
  app.add_option("--level", level, "gate (default) or nightly; soak is accepted too");
  CLI::Option* seed_option = app.add_option("--seed", seed, "Seed of the generated cases (default 1)");
  knob_flags.add_to(app, "");
  app.add_flag("--all-knobs", options.all_knobs, "Every knob combination, as certify --all-knobs");
  std::vector<std::string> campaigns;
  app.add_option("--campaign", campaigns, "Export only these campaigns: corpus, exhaustive, properties (repeatable); or "
                                        "fingerprint alone, the deciding cases of `mxconform fingerprint`");
  app.add_option("--corpus", options.corpus_paths, "Corpus files or directories (default: mxconform's corpus)");
  app.add_flag("--force", options.force, "Write into a directory that is not empty, over the bundle files in it");
  if (const std::optional<int> status = parse_command_line(app, argc, argv, "export")) return *status;

  options.level = certify::parse_level(level);
  if (seed_option->count() > 0) options.seed = parse_unsigned("--seed", seed, UINT64_MAX);
  options.knobs = knob_flags.knobs();
  options.named_knobs = knob_flags.named();
  if (options.all_knobs) knob_flags.refuse_with_all_knobs();
  if (!campaigns.empty()) options.campaigns = campaigns;
  if (options.corpus_paths.empty()) options.corpus_paths = {certify::default_corpus_directory()};

  const certify::ExportSummary summary = certify::export_bundle(options);
  std::printf("exported %zu cases (%llu input bytes), level %s, seed %llu, to %s\n", summary.cases,
              static_cast<unsigned long long>(summary.input_bytes), certify::name(options.level),
              static_cast<unsigned long long>(options.seed), safe_text(options.directory).c_str());
  for (const std::string& skipped : summary.skipped) std::printf("skipped: %s\n", skipped.c_str());
  std::printf("manifest: %s\n", safe_text(summary.manifest_path).c_str());
  std::printf("next: run every case (examples/python/run_bundle.py), then `mxconform grade %s`\n",
              safe_text(options.directory).c_str());
  return kExitSuccess;
}

int run_grade(int argc, char** argv) {
  CLI::App app{"Grade the outputs a runner wrote into a bundle made by `mxconform export`, as certify grades a call, "
               "and write the certificate",
               "mxconform grade"};
  certify::GradeOptions options;
  std::string report_path, junit_path;
  bool force = false;
  app.add_option("bundle", options.directory, "The bundle directory")->required();
  app.add_option("--report", report_path, "Write the certificate (YAML) here");
  app.add_option("--junit", junit_path, "Write JUnit XML here");
  app.add_option("--corpus", options.corpus_paths, "The corpus the bundle was exported with (default: mxconform's)");
  app.add_option("--emit-repro", options.emit_repro_dir, "Write each failure's repro as a corpus file here");
  app.add_flag("--force", force, "Overwrite existing report files (regular files only)");
  if (const std::optional<int> status = parse_command_line(app, argc, argv, "grade")) return *status;
  if (options.corpus_paths.empty()) options.corpus_paths = {certify::default_corpus_directory()};
  std::vector<std::string> outputs;
  for (const std::string& path : {report_path, junit_path}) {
    if (!path.empty()) outputs.push_back(path);
  }
  std::vector<std::string> inputs = options.corpus_paths;
  inputs.push_back(options.directory);
  check_output_paths(inputs, outputs, force);

  const certify::Certificate certificate = certify::grade_bundle(options);
  if (!report_path.empty()) write_file_atomically(report_path, certify::to_yaml(certificate), force);
  if (!junit_path.empty()) write_file_atomically(junit_path, certify::to_junit(certificate), force);
  std::cout << certify::verdict_table(certificate);
  return certificate.certified() ? kExitSuccess : kExitNegativeVerdict;
}

}  // namespace mxconform::cli
