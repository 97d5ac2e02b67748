// `mxconform certify` and `mxconform merge`.
#include "certify_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "build_info.h"
#include "certification.h"
#include "mxconform/error.h"

namespace mxconform::cli {
namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// Writes `text` to `path` whole (temporary file, then rename); refuses an existing file unless
// `force`.
void write_report(const std::string& path, const std::string& text, bool force) {
  if (exists(path) && !force) throw Error(path + ": exists; pass --force to overwrite");
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary);
    if (!out) throw Error(path + ": cannot write (does the directory exist?)");
    out << text;
    if (!out.flush()) throw Error(path + ": write failed");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw Error(path + ": cannot write");
  }
}

// "I/N" -> (I, N).
std::pair<std::size_t, std::size_t> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  try {
    if (slash != std::string::npos) {
      const std::size_t index = std::stoul(text.substr(0, slash));
      const std::size_t count = std::stoul(text.substr(slash + 1));
      if (count > 0 && index < count) return {index, count};
    }
  } catch (const std::exception&) {
  }
  throw Error("--shard " + text + ": expected I/N with 0 <= I < N");
}

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
  std::string level = "gate", out_dtype, emax_mode = "emax", fp8_nan = "canonical", scale_layout = "physical";
  std::string report_path, junit_path, shard;
  std::vector<std::string> campaigns;
  bool force = false;
  app.add_option("--backend", options.backend, "A built-in backend (see `mxconform backends`) or a path to a shared "
                                               "library exporting mxconform_backend_v1")->required();
  app.add_option("--level", level, "gate (CI, minutes), nightly or soak");
  app.add_option("--seed", options.seed, "Seed of the generated cases (printed in the certificate)");
  app.add_option("--emax-mode", emax_mode, "EMAX mode certified: emax (default) or emax-1");
  app.add_option("--fp8-nan", fp8_nan, "FP8 NaN policy certified: canonical (default) or zero");
  app.add_option("--lane-stride", options.knobs.fp4_lane_stride, "FP4 lane stride certified (default 0)");
  app.add_option("--high-parity", options.knobs.fp4_high_parity, "FP4 high parity certified (default 1)");
  app.add_option("--scale-layout", scale_layout, "Scale layout certified: physical (default) or logical");
  app.add_flag("--all-knobs", options.all_knobs, "Certify every knob combination the backend declares");
  app.add_option("--campaign", campaigns, "Run only these campaigns: corpus, exhaustive, properties (repeatable)");
  app.add_option("--corpus", options.corpus_paths, "Corpus files or directories (default: mxconform's corpus)");
  app.add_option("--timeout", options.timeout_seconds, "Per-call timeout in seconds before a call counts as a hang");
  app.add_option("--report", report_path, "Write the certificate (YAML) here");
  app.add_option("--junit", junit_path, "Write JUnit XML here");
  app.add_option("--emit-repro", options.emit_repro_dir, "Write each failure's minimal repro as a corpus file here");
  app.add_option("--shard", shard, "Run shard I of N (I/N); GTEST_SHARD_INDEX and GTEST_TOTAL_SHARDS also work");
  app.add_flag("--force", force, "Overwrite existing report files");
  CLI11_PARSE(app, argc, argv);

  options.level = certify::parse_level(level);
  options.knobs.emax_mode = parse_emax_mode(emax_mode);
  options.knobs.fp8_nan = parse_fp8_nan(fp8_nan);
  options.knobs.scale_layout = parse_scale_layout(scale_layout);
  if (options.knobs.fp4_high_parity != 0 && options.knobs.fp4_high_parity != 1) {
    throw Error("--high-parity " + std::to_string(options.knobs.fp4_high_parity) + ": must be 0 or 1");
  }
  if (!campaigns.empty()) {
    for (const auto& c : campaigns) {
      if (c != "corpus" && c != "exhaustive" && c != "properties") {
        throw Error("--campaign " + c + ": expected corpus, exhaustive or properties");
      }
    }
    options.campaigns = campaigns;
  }
  if (options.corpus_paths.empty()) {
    options.corpus_paths = {exists(MXCONFORM_SOURCE_CORPUS_DIR) ? MXCONFORM_SOURCE_CORPUS_DIR
                                                                : MXCONFORM_INSTALLED_CORPUS_DIR};
  }
  if (!shard.empty()) {
    std::tie(options.shard_index, options.shard_count) = parse_shard(shard);
  } else if (const char* total = std::getenv("GTEST_TOTAL_SHARDS")) {
    const char* index = std::getenv("GTEST_SHARD_INDEX");
    std::tie(options.shard_index, options.shard_count) = parse_shard(std::string(index ? index : "0") + "/" + total);
  }
  for (const std::string& path : {report_path, junit_path}) {
    if (!path.empty() && exists(path) && !force) throw Error(path + ": exists; pass --force to overwrite");
  }
  Progress progress;
  options.progress = [&progress](const std::string& stage, std::size_t done, std::size_t total) {
    progress(stage, done, total);
  };

  std::fprintf(stderr, "mxconform certify: backend %s, level %s, seed %llu, shard %zu/%zu%s\n", options.backend.c_str(),
               level.c_str(), static_cast<unsigned long long>(options.seed), options.shard_index, options.shard_count,
               options.all_knobs ? ", all declared knobs" : "");
  const certify::Certificate certificate = certify::run_certification(options);
  const std::string yaml = certify::to_yaml(certificate);
  if (!report_path.empty()) write_report(report_path, yaml, force);
  if (!junit_path.empty()) write_report(junit_path, certify::to_junit(certificate), force);
  std::cout << certify::verdict_table(certificate);
  for (const certify::Failure& f : certificate.failures) {
    std::cout << "\n" << name(f.outcome) << " in " << f.campaign << " case " << f.case_id << ": " << f.detail << "\n  "
              << f.configuration << "\n";
    if (!f.repro_path.empty()) std::cout << "  repro written to " << f.repro_path << "\n";
    std::cout << f.repro_yaml;
  }
  if (report_path.empty()) std::cout << "\n" << yaml;
  return certificate.certified() ? 0 : 1;
}

int run_merge(int argc, char** argv) {
  CLI::App app{"Merge the certificates of the shards of one campaign into one", "mxconform merge"};
  std::vector<std::string> inputs;
  std::string output, junit;
  bool force = false;
  app.add_option("certificates", inputs, "Shard certificates (YAML)")->required();
  app.add_option("--output", output, "Write the merged certificate here")->required();
  app.add_option("--junit", junit, "Also write JUnit XML here");
  app.add_flag("--force", force, "Overwrite existing files");
  CLI11_PARSE(app, argc, argv);
  std::vector<certify::Certificate> shards;
  for (const std::string& path : inputs) shards.push_back(certify::read_certificate(path));
  const certify::Certificate merged = certify::merge(shards);
  write_report(output, certify::to_yaml(merged), force);
  if (!junit.empty()) write_report(junit, certify::to_junit(merged), force);
  std::cout << certify::verdict_table(merged);
  return merged.certified() ? 0 : 1;
}

}  // namespace mxconform::cli
