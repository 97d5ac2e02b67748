// `mxconform fingerprint`.
#include "fingerprint_command.h"

#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "certification.h"
#include "command_line.h"
#include "exit_status.h"
#include "fingerprint.h"
#include "knob_flags.h"
#include "mxconform/error.h"
#include "mxconform/safe_text.h"
#include "option_values.h"

namespace mxconform::cli {

int run_fingerprint(int argc, char** argv) {
  CLI::App app{"Name the contract a backend implements: run a small fixed set of deciding cases and print, per "
               "axis, what the backend did, then the profile and knob values that match every case. For a device "
               "mxconform cannot drive: --export-bundle DIR writes the cases as a bundle, a runner writes the outputs, "
               "--bundle DIR reads them",
               "mxconform fingerprint"};
  std::string backend, timeout, export_directory, bundle_directory;
  bool force = false;
  CLI::Option* backend_option = app.add_option(
      "--backend", backend, "A built-in backend, a path to a shared library exporting mxconform_backend_v1, or 'cmd:COMMAND'");
  CLI::Option* timeout_option = app.add_option("--timeout", timeout, "Per-call timeout in seconds (default 20)");
  CLI::Option* export_option = app.add_option(
      "--export-bundle", export_directory,
      "Write the deciding cases as a bundle (docs/bundle-manifest.md) into this new or empty directory, with the "
      "profile and knobs the device is called with, instead of calling a backend");
  CLI::Option* bundle_option = app.add_option(
      "--bundle", bundle_directory, "Read the outputs a runner wrote into a bundle of --export-bundle, instead of "
                                    "calling a backend");
  KnobFlags knob_flags;
  knob_flags.add_to(app, "of the calls (with --export-bundle)");
  app.add_flag("--force", force, "With --export-bundle: write into a directory that is not empty");
  if (const std::optional<int> status = parse_command_line(app, argc, argv, "fingerprint")) return *status;
  const std::size_t sources = backend_option->count() + export_option->count() + bundle_option->count();
  if (sources != 1) throw Error("fingerprint: give exactly one of --backend, --export-bundle DIR and --bundle DIR");

  if (export_option->count() > 0) {
    certify::ExportOptions options;
    options.directory = export_directory;
    options.knobs = knob_flags.knobs();
    options.campaigns = {certify::kFingerprintCampaign};
    options.force = force;
    const certify::ExportSummary summary = certify::export_bundle(options);
    std::printf("exported %zu deciding cases (profile %s, block %s) to %s\n", summary.cases,
                std::string(name(options.knobs.profile)).c_str(), std::string(name(options.knobs.block_shape)).c_str(),
                safe_text(export_directory).c_str());
    std::printf("manifest: %s\n", safe_text(summary.manifest_path).c_str());
    std::printf("next: run every case on the device (examples/python/run_bundle.py), then `mxconform fingerprint --bundle %s`\n",
                safe_text(export_directory).c_str());
    return kExitSuccess;
  }
  certify::Fingerprint fingerprint;
  if (bundle_option->count() > 0) {
    certify::GradeOptions options;
    options.directory = bundle_directory;
    options.corpus_paths = {certify::default_corpus_directory()};
    fingerprint = certify::fingerprint_of_bundle(options);
  } else {
    certify::WorkerLimits limits;
    if (timeout_option->count() > 0) limits.timeout_seconds = parse_timeout_seconds("--timeout", timeout);
    fingerprint = certify::take_fingerprint(backend, limits);
  }
  std::cout << certify::to_text(fingerprint);
  return fingerprint.decided() ? kExitSuccess : kExitNegativeVerdict;
}

}  // namespace mxconform::cli
