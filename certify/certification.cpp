#include "certification.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "build_info.h"
#include "git_commit.h"
#include "call_grade.h"
#include "campaign_cases.h"
#include "class_cases.h"
#include "command_backend.h"
#include "corpus_loader.h"
#include "coverage.h"
#include "failure_database.h"
#include "failure_groups.h"
#include "mxconform/error.h"
#include "mxconform/safe_text.h"
#include "repro_writer.h"
#include "sha256.h"
#include "shrink.h"

namespace mxconform::certify {

namespace {

constexpr const char* kFailureDatabaseCampaign = "failures";

class Runner {
 public:
  Runner(const CertifyOptions& options, WorkerBackend& backend, Certificate& certificate)
      : options_(options), backend_(backend), certificate_(certificate) {}

  // Counts the case and, when it belongs to this shard, runs it, tallies its outcome and
  // records (and shrinks) a failure.
  // `origin`: the corpus case this one is, when it is one (its id, why and source go into the repro).
  void run_case(Tally& tally, const std::string& campaign, const std::string& case_id, const QuantizeConfig& config,
                const std::vector<std::uint16_t>& input, const std::vector<std::uint8_t>& expected_data,
                const std::vector<std::uint8_t>& expected_scale, const corpus::CorpusCase* origin = nullptr) {
    const std::size_t index = index_++;
    if (index % options_.shard_count != options_.shard_index) return;
    ++certificate_.cases;
    CallResult result = backend_.run(config, input, expected_data, expected_scale);
    bool repeatable = true;
    if (is_failure(result.outcome) && !result.gone_before_call) {
      // A failure must happen again to be shrunk and replayed: run the same call once more.
      const CallResult again = backend_.run(config, input, expected_data, expected_scale);
      if (again.outcome != result.outcome || again.site != result.site) {
        repeatable = false;
        result.detail = "first run: " + std::string(name(result.outcome)) + ": " + result.detail + "; same call again: " +
                        name(again.outcome) + (again.detail.empty() ? "" : ": " + again.detail);
        result.outcome = Outcome::kNondeterministic;
      }
    }
    ++tally.outcomes[name(result.outcome)];
    if (result.outcome == Outcome::kUnsupported && tally.unsupported.empty()) tally.unsupported = result.detail;
    if (is_failure(result.outcome)) {
      // Every failing case counts in its signature's group; a few per group are listed, shrunk.
      const FailureSignature signature = signature_of(result, config, input, expected_data, expected_scale);
      if (count_failure(certificate_, campaign, signature.text) && certificate_.failures.size() < kMaxFailuresListed) {
        record_failure(campaign, case_id, config, input, signature, result, repeatable, origin);
        mark_shown(certificate_, signature.text);
      }
    }
  }

  std::size_t next_index() const { return index_; }
  // Numbers the following cases from 0 again: the failure database's cases are sharded among
  // themselves, so that how many there are moves no campaign case to another shard.
  void restart_index() { index_ = 0; }
  // New failures' repros go into this directory (the failure database) too.
  void use_failure_database(const std::string& directory) { database_dir_ = directory; }

 private:
  void record_failure(const std::string& campaign, const std::string& case_id, const QuantizeConfig& config,
                      const std::vector<std::uint16_t>& input, const FailureSignature& signature,
                      const CallResult& result, bool repeatable, const corpus::CorpusCase* origin) {
    Failure failure;
    failure.campaign = campaign;
    failure.case_id = case_id;
    failure.configuration = describe(config);
    failure.knobs = knobs_text(config);
    failure.outcome = result.outcome;
    // A wrong result: its first scale and first data difference both (a bad scale byte must not
    // hide the elements); anything else: what the worker saw.
    failure.detail = signature.comparison ? comparison_text(*signature.comparison) : result.detail;
    if (!result.stderr_text.empty()) failure.detail += " [backend stderr: " + result.stderr_text.substr(0, 1024) + "]";
    failure.signature = signature.text;
    ShrunkCase repro_case{config, input, result, signature, 0};
    // A nondeterministic failure is kept whole: a shrink step could not tell it from a pass.
    if (repeatable && !result.gone_before_call && shrink_seconds_ < kShrinkSeconds) {
      const auto started = std::chrono::steady_clock::now();
      repro_case = shrink_failure(backend_, config, input, result, signature,
                                  ShrinkBudget{ShrinkBudget{}.max_tries, kShrinkSeconds - shrink_seconds_});
      shrink_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    }
    failure.repro_detail = difference_text(repro_case);
    try {
      corpus::CorpusCase repro = corpus::make_repro_case(repro_case.config, repro_case.input, "certify-" + campaign, options_.seed);
      if (origin != nullptr) {
        // The corpus case's own context, and what failed.
        // Escaped and capped so that the repro always loads (its text limit, no control bytes).
        constexpr std::size_t kWhyBytes = 1800;  // at most 4x that once escaped, under the loader's 8192
        repro.why = safe_multiline_text("Shrunk from corpus case " + origin->id + " (" + corpus::to_string(origin->location) +
                                  "), where certify saw " + name(result.outcome) + ": " + result.detail +
                                  ". That case's why: " + origin->why,
                              kWhyBytes);
        repro.source = origin->source;
      }
      // The header: what failed, the repro's own first differences, the signature it keeps.
      const std::string note = "mxconform certify: " + std::string(name(repro_case.result.outcome)) + " of " +
                               safe_text(backend_.spec()) + " in " + campaign + " case " + safe_text(case_id) +
                               "\nthis repro: " + safe_text(failure.repro_detail) +
                               "\nfailure signature: " + safe_text(signature.text);
      failure.repro_yaml = corpus::format_corpus_file({repro}, note);
      if (!options_.emit_repro_dir.empty()) {
        const corpus::ReproFile emitted = corpus::write_repro_file(repro, options_.emit_repro_dir, backend_.spec(), note);
        failure.repro_path = emitted.path;
        failure.repro_existed = !emitted.written;
      }
      // A saved failure that fails again, and shrinks no further, is in the database already.
      const bool saved_already = campaign == kFailureDatabaseCampaign && origin != nullptr &&
                                 repro_case.input == origin->input && repro_case.config.partitions == origin->config.partitions &&
                                 repro_case.config.free == origin->config.free;
      if (!saved_already) {
        const corpus::ReproFile saved = add_to_failure_database(repro, note);
        if (failure.repro_path.empty()) {
          failure.repro_path = saved.path;
          failure.repro_existed = !saved.path.empty() && !saved.written;
        }
      }
    } catch (const std::exception& error) {
      failure.repro_yaml = std::string("# no repro: ") + error.what() + "\n";
    }
    certificate_.failures.push_back(failure);
  }

  // The repro goes into the failure database (never over a file: its name is its content's hash).
  // A database that cannot be written is noted in the header, once; the run goes on.
  // Returns the file and whether it was written now, or no path when there is no database or it
  // could not be written.
  corpus::ReproFile add_to_failure_database(const corpus::CorpusCase& repro, const std::string& note) {
    if (database_dir_.empty() || certificate_.header.count("failure_database_error") != 0) return {};
    try {
      const corpus::ReproFile saved = corpus::write_repro_file(repro, database_dir_, backend_.spec(), note);
      if (!saved.written) return saved;  // the same repro, saved before (its name is its content's hash)
      ++added_to_database_;
      certificate_.header["failure_database_added"] = std::to_string(added_to_database_);
      return saved;
    } catch (const std::exception& error) {
      certificate_.header["failure_database_error"] = error.what();
      return {};
    }
  }

  // What the repro's own run showed: its first scale and first data difference (both, so that a
  // bad scale byte does not hide the elements), or its outcome's detail.
  static std::string difference_text(const ShrunkCase& c) {
    if (!c.signature.comparison) return std::string(name(c.result.outcome)) + ": " + c.result.detail;
    return describe(c.config) + ": " + comparison_text(*c.signature.comparison);
  }

  static constexpr double kShrinkSeconds = 120;
  // Listed failures over all groups (each group lists at most kShownPerGroup): bounds the
  // certificate when many configurations fail in many ways.
  static constexpr std::size_t kMaxFailuresListed = 200;

  const CertifyOptions& options_;
  WorkerBackend& backend_;
  Certificate& certificate_;
  std::size_t index_ = 0;
  double shrink_seconds_ = 0;  // spent so far in this run
  std::string database_dir_;   // the failure database, or empty
  std::size_t added_to_database_ = 0;
};

std::string read_first_line_with(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return text;
}

void fill_header(const CertifyOptions& options, WorkerBackend& backend, const std::vector<std::string>& corpus_files,
                 Certificate& certificate) {
  auto& h = certificate.header;
  h["mxconform_version"] = MXCONFORM_VERSION;
  h["mxconform_commit"] = git_commit();
  Sha256 corpus_hash;
  for (const std::string& file : corpus_files) {
    std::ifstream in(file, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    corpus_hash.update(text.data(), text.size());
  }
  h["corpus_sha256"] = corpus_hash.hex_digest();
  h["corpus_files"] = std::to_string(corpus_files.size());
  h["backend"] = options.backend;
  try {
    const BackendInfo& info = backend.info();
    h["backend_name"] = info.name;
    h["backend_version"] = info.version;
    h["backend_description"] = info.description;
    h["worker_sandbox"] = backend.sandbox();
  } catch (const LoadError& error) {
    h["load_error"] = error.what();  // a verdict: the backend is not certified
  }
  h["timeout_seconds"] = std::to_string(options.timeout_seconds);
  h["worker_memory_limit_bytes"] = options.memory_limit_bytes == 0 ? "none" : std::to_string(options.memory_limit_bytes);
  const bool library = !names_a_command(options.backend) && options.backend.find('/') != std::string::npos;
  char resolved[4096];
  const std::string path = library ? (::realpath(options.backend.c_str(), resolved) ? resolved : options.backend)
                                   : (::realpath("/proc/self/exe", resolved) ? resolved : "built-in");
  h["backend_path"] = path;
  h["backend_sha256"] = sha256_file(path);
  if (const auto* command = dynamic_cast<const CommandBackend*>(&backend)) {
    // A command: the program and the files its arguments name (a script, a model) are what was
    // certified; backend_sha256 is the digest of their list of digests, so that merge compares them all.
    std::string files, digests;
    for (const std::string& file : command->files()) {
      files += (files.empty() ? "" : " ") + file;
      digests += (digests.empty() ? "" : " ") + file + "=" + sha256_file(file);
    }
    Sha256 all;
    all.update(digests.data(), digests.size());
    h["backend_path"] = files;
    h["backend_command_files_sha256"] = digests;
    h["backend_sha256"] = all.hex_digest();
    h["worker_memory_limit_bytes"] = "none (a command subject)";
  }
  h["cpu_model"] = read_first_line_with("/proc/cpuinfo", "model name");
  h["cpu_flags"] = read_first_line_with("/proc/cpuinfo", "flags");
  utsname os{};
  ::uname(&os);
  h["os"] = std::string(os.sysname) + " " + os.release + " " + os.machine;
  h["level"] = name(options.level);
  h["seed"] = std::to_string(options.seed);
  h["shard"] = std::to_string(options.shard_index) + "/" + std::to_string(options.shard_count);
  h["all_knobs"] = options.all_knobs ? "true" : "false";
  std::string campaigns, campaign_flags;
  for (const auto& c : options.campaigns) {
    campaigns += (campaigns.empty() ? "" : " ") + c;
    campaign_flags += " --campaign " + c;
  }
  h["campaigns"] = campaigns;
  // The knob flags the user gave, and only those: a knob not named leaves the corpus campaign
  // every value (in_request), and so must the rerun. The others have their default values (a
  // profile's own, set again by --profile). With --all-knobs too: the knobs of the configurations
  // of the other declared lane strides, and the profile.
  const QuantizeConfig& k = options.knobs;
  const NamedKnobs& named = options.named_knobs;
  std::string knob_flags;
  if (named.emax_mode) knob_flags += " --emax-mode " + std::string(name(k.emax_mode));
  if (named.fp8_nan) knob_flags += " --fp8-nan " + std::string(name(k.fp8_nan));
  if (named.lane_stride) knob_flags += " --lane-stride " + std::to_string(k.fp4_lane_stride);
  if (named.high_parity) knob_flags += " --high-parity " + std::to_string(k.fp4_high_parity);
  if (named.scale_layout) knob_flags += " --scale-layout " + std::string(name(k.scale_layout));
  if (k.profile != ProfileId::kNeuron) {
    knob_flags += " --profile " + std::string(name(k.profile)) + " --block-shape " + std::string(name(k.block_shape));
  }
  // Every word a user or a backend chose is quoted for a shell (shell_word): pasting the line
  // runs the same certification and nothing else.
  std::string corpus_flags;
  bool builtin_corpus = false;
  for (const std::string& path : options.corpus_paths) {
    if (path == default_corpus_directory()) {
      builtin_corpus = true;
    } else {
      corpus_flags += " --corpus " + shell_word(path);
    }
  }
  if (!builtin_corpus && !options.corpus_paths.empty()) corpus_flags += " --only-corpus";
  h["rerun"] = "mxconform certify --backend " + shell_word(options.backend) + " --level " + name(options.level) +
               " --seed " + std::to_string(options.seed) + (options.all_knobs ? " --all-knobs" : "") + knob_flags +
               " --shard " + std::to_string(options.shard_index) + "/" + std::to_string(options.shard_count) +
               campaign_flags + corpus_flags;
  h["started"] = now_utc();
}

// A new tally for one campaign on one configuration; counted as not supported, with the reason,
// when the backend does not declare the configuration.
Tally& open_tally(Certificate& certificate, WorkerBackend& backend, const char* campaign, const QuantizeConfig& config) {
  certificate.tallies.push_back({campaign, knobs_text(config), std::string(name(config.output)), {}, {}});
  Tally& tally = certificate.tallies.back();
  const std::string undeclared = backend.info().undeclared(config);
  if (!undeclared.empty()) tally.unsupported = "not declared: " + undeclared;
  return tally;
}

bool wants(const CertifyOptions& options, const char* campaign) {
  return std::find(options.campaigns.begin(), options.campaigns.end(), campaign) != options.campaigns.end();
}

}  // namespace

std::string default_corpus_directory() {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path executable = fs::read_symlink("/proc/self/exe", error);
  const fs::path installed = error ? fs::path() : executable.parent_path().parent_path() / "share" / "mxconform" / "corpus";
  if (!installed.empty() && fs::is_directory(installed, error)) return installed.string();
  if (fs::is_directory(MXCONFORM_SOURCE_CORPUS_DIR, error)) return MXCONFORM_SOURCE_CORPUS_DIR;
  throw Error("mxconform's corpus is not at " + (installed.empty() ? std::string("<install prefix>/share/mxconform/corpus")
                                                                   : installed.string()) +
              " nor at " + MXCONFORM_SOURCE_CORPUS_DIR + "; reinstall, or pass --corpus DIR");
}

// The profile campaign of every configuration: boundary blocks, then seeded blocks up to the level.
template <typename Progress>
void run_profile_campaign(const CertifyOptions& options, const std::vector<QuantizeConfig>& configs,
                          WorkerBackend& backend, Runner& runner, Certificate& certificate, Progress& progress) {
  std::size_t done = 0;
  for (const QuantizeConfig& config : configs) {
    Tally& tally = open_tally(certificate, backend, "properties", config);
    if (tally.unsupported.empty()) {
      for_each_profile_case(config, options.level, options.seed, [&](const CampaignCase& c) {
        runner.run_case(tally, "properties", c.id, c.config, c.input, c.expected_data, c.expected_scale);
      });
    }
    progress("properties", ++done, configs.size());
  }
}

Certificate run_certification(const CertifyOptions& options) {
  if (options.shard_count == 0 || options.shard_index >= options.shard_count) {
    throw Error("shard " + std::to_string(options.shard_index) + "/" + std::to_string(options.shard_count) +
                ": the index must be below the count");
  }
  // A campaign with no case for the profile: a usage error when it is all that was asked for,
  // else named in the certificate as skipped.
  const std::vector<std::string> skipped = skipped_campaigns(options.campaigns, options.knobs);
  Certificate certificate;
  for (const std::string& campaign : skipped) {
    certificate.header["campaigns_skipped"] += (certificate.header["campaigns_skipped"].empty() ? "" : "; ") + campaign;
  }
  const std::unique_ptr<WorkerBackend> worker =
      make_worker_backend(options.backend, WorkerLimits{options.timeout_seconds, options.memory_limit_bytes});
  WorkerBackend& backend = *worker;
  const std::vector<std::string> corpus_files =
      wants(options, "corpus") ? corpus::find_corpus_files(options.corpus_paths) : std::vector<std::string>{};
  fill_header(options, backend, corpus_files, certificate);
  if (certificate.header.count("load_error") != 0) {
    certificate.header["finished"] = now_utc();
    certificate.header["verdict"] = "not certified";
    return certificate;
  }
  Runner runner(options, backend, certificate);
  const std::vector<QuantizeConfig> configs =
      campaign_configurations(options.knobs, options.all_knobs, backend.info().capabilities.fp4_lane_strides);
  for (const QuantizeConfig& c : configs) certificate.configurations.push_back(knobs_text(c));

  auto progress = [&](const std::string& stage, std::size_t done, std::size_t total) {
    if (options.progress) options.progress(stage, done, total);
  };

  // Corpus cases, each with its own configuration, tallied per configuration under `campaign`.
  // Only the cases the request covers (in_request): another profile's or block shape's cases, or
  // another value of a knob the user named, say nothing about what was asked.
  const NamedKnobs named = options.all_knobs ? every_knob() : options.named_knobs;
  const auto requested = [&](const QuantizeConfig& config) { return in_request(options.knobs, named, config); };
  const auto run_corpus_cases = [&](const char* campaign, const std::vector<corpus::CorpusCase>& cases) {
    std::map<std::string, std::size_t> tally_of;
    std::size_t done = 0;
    const auto total = static_cast<std::size_t>(
        std::count_if(cases.begin(), cases.end(), [&](const corpus::CorpusCase& k) { return requested(k.config); }));
    for_each_corpus_case(cases, [&](const CampaignCase& c) {
      if (!requested(c.config)) return;
      const std::string key = knobs_text(c.config);
      if (tally_of.count(key) == 0) {
        tally_of[key] = certificate.tallies.size();
        certificate.tallies.push_back({campaign, key, std::string(name(c.config.output)), {}, {}});
      }
      runner.run_case(certificate.tallies[tally_of[key]], campaign, c.id, c.config, c.input, c.expected_data,
                      c.expected_scale, c.origin);
      progress(campaign, ++done, total);
    });
  };

  // 0. Past failures first: the failure database's repros, then new failures go into it.
  std::string directory = options.failure_database_dir;
  if (options.failure_database && directory.empty()) {
    try {
      directory = default_failure_database(options.backend, backend.info().name);
    } catch (const Error& error) {  // no cache directory to be found: run without a database
      certificate.header["failure_database"] = "none";
      certificate.header["failure_database_cases"] = "0";
      certificate.header["failure_database_error"] = error.what();
    }
  }
  if (options.failure_database && !directory.empty()) {
    const std::vector<corpus::CorpusCase> past = load_failure_database(directory);
    certificate.header["failure_database"] = directory;
    certificate.header["failure_database_cases"] = std::to_string(past.size());
    runner.use_failure_database(directory);
    run_corpus_cases(kFailureDatabaseCampaign, past);
    runner.restart_index();
  }

  // 1. The corpus: every case, with its own configuration.
  if (wants(options, "corpus")) run_corpus_cases("corpus", corpus::load_corpus(options.corpus_paths));

  // 2. The exhaustive element campaign, per configuration.
  if (wants(options, "exhaustive") && options.knobs.profile == ProfileId::kNeuron) {
    std::size_t done = 0;
    for (const QuantizeConfig& config : configs) {
      Tally& tally = open_tally(certificate, backend, "exhaustive", config);
      if (tally.unsupported.empty()) {
        for_each_exhaustive_case(config, options.level, [&](const CampaignCase& c) {
          runner.run_case(tally, "exhaustive", c.id, c.config, c.input, c.expected_data, c.expected_scale);
        });
      }
      progress("exhaustive", ++done, configs.size());
    }
  }

  // 3. Generated property cases, per configuration: the property suite's MX-aware generators,
  // with the configuration's knobs.
  if (wants(options, "properties") && options.knobs.profile != ProfileId::kNeuron) {
    // Another profile: the profile campaign (profile_campaign.h) stands for the property suite,
    // whose generators and coverage classes are Neuron's.
    run_profile_campaign(options, configs, backend, runner, certificate, progress);
  } else if (wants(options, "properties")) {
    properties::Coverage coverage;
    std::size_t done = 0;
    for (const QuantizeConfig& config : configs) {
      Tally& tally = open_tally(certificate, backend, "properties", config);
      if (!tally.unsupported.empty()) {
        progress("properties", ++done, configs.size());
        continue;
      }
      properties::Coverage config_coverage;
      for_each_property_case(config, options.level, options.seed, [&](const CampaignCase& c) {
        const properties::QuantizeCase generated{c.config, c.input};
        coverage.add(generated);
        config_coverage.add(generated);
        runner.run_case(tally, "properties", c.id, c.config, c.input, c.expected_data, c.expected_scale);
      });
      for (properties::CoverageClass missed : config_coverage.missed(properties::promised_classes(config))) {
        certificate.coverage_missed.push_back(knobs_text(config) + ": " + std::string(properties::name(missed)));
      }
      progress("properties", ++done, configs.size());
    }
    for (std::size_t id = 0; id < properties::kCoverageClasses; ++id) {
      const auto cls = static_cast<properties::CoverageClass>(id);
      if (coverage.cases_hitting(cls) > 0) certificate.coverage[std::string(properties::name(cls))] = coverage.cases_hitting(cls);
    }
  }
  certificate.header["finished"] = now_utc();
  certificate.header["workers_started"] = std::to_string(backend.workers_started());
  certificate.header["verdict"] = certificate.certified() ? "certified" : "not certified";
  return certificate;
}

}  // namespace mxconform::certify
