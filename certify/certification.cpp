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
#include "case_gen.h"
#include "class_cases.h"
#include "corpus_loader.h"
#include "coverage.h"
#include "exhaustive_campaign.h"
#include "mxconform/error.h"
#include "mxconform/safe_text.h"
#include "oracle.h"
#include "profile_campaign.h"
#include "repro_writer.h"
#include "sha256.h"

namespace mxconform::certify {

const char* name(Level level) {
  switch (level) {
    case Level::kGate: return "gate";
    case Level::kNightly: return "nightly";
    case Level::kSoak: return "soak";
  }
  return "?";
}

Level parse_level(const std::string& text) {
  if (text == "gate") return Level::kGate;
  if (text == "nightly") return Level::kNightly;
  if (text == "soak") return Level::kSoak;
  throw Error("unknown level '" + text + "'; expected gate, nightly or soak");
}

bool Certificate::certified() const {
  if (!failures.empty() || !coverage_missed.empty() || header.count("load_error") != 0) return false;
  std::size_t passes = 0;
  for (const Tally& t : tallies) {
    for (const auto& [outcome, count] : t.outcomes) {
      if (outcome != name(Outcome::kPass) && outcome != name(Outcome::kUnsupported) && count > 0) return false;
      if (outcome == name(Outcome::kPass)) passes += count;
    }
  }
  return passes > 0;
}

namespace {

// ---- What to certify. ----

// Whether the configuration's profile admits its dtypes and knobs (validated on one block).
bool profile_admits(QuantizeConfig config) {
  const BlockExtent block = extent(config.block_shape);
  config.partitions = block.rows;
  config.free = block.cols;
  try {
    validate(config);
    return true;
  } catch (const Error&) {
    return false;
  }
}

std::vector<QuantizeConfig> configurations(const CertifyOptions& options) {
  if (options.knobs.profile != ProfileId::kNeuron) {
    // Another profile: its own knob values (apply_profile), every dtype it admits.
    std::vector<QuantizeConfig> out;
    for (InputDtype input : {InputDtype::kBfloat16, InputDtype::kFloat16}) {
      for (const OutputDtypeInfo& dtype : output_dtypes()) {
        QuantizeConfig c = options.knobs;
        c.input = input;
        c.output = dtype.id;
        if (profile_admits(c)) out.push_back(c);
      }
    }
    return out;
  }
  std::vector<QuantizeConfig> out;
  for (InputDtype input : {InputDtype::kBfloat16, InputDtype::kFloat16}) {
    for (const OutputDtypeInfo& dtype : output_dtypes()) {
      QuantizeConfig base = options.knobs;
      base.input = input;
      base.output = dtype.id;
      if (!options.all_knobs) {
        if (!is_fp4(dtype.id)) {
          base.fp4_lane_stride = 0;
          base.fp4_high_parity = 1;
        }
        out.push_back(base);
        continue;
      }
      for (EmaxMode mode : {EmaxMode::kEmax, EmaxMode::kEmaxMinus1}) {
        for (ScaleLayout layout : {ScaleLayout::kPhysical, ScaleLayout::kLogical}) {
          QuantizeConfig c = base;
          c.emax_mode = mode;
          c.scale_layout = layout;
          if (is_fp4(dtype.id)) {
            for (int parity : {1, 0}) {
              for (std::uint32_t stride : {0u, 1u, 2u, 4u, 8u}) {
                c.fp4_high_parity = parity;
                c.fp4_lane_stride = stride;
                out.push_back(c);
              }
            }
          } else {
            c.fp4_lane_stride = 0;
            c.fp4_high_parity = 1;
            for (Fp8NanPolicy policy : {Fp8NanPolicy::kCanonical, Fp8NanPolicy::kZero}) {
              c.fp8_nan = policy;
              out.push_back(c);
            }
          }
        }
      }
    }
  }
  return out;
}

// A configuration's knobs and dtypes without its shape.
std::string knobs_text(const QuantizeConfig& config) {
  std::ostringstream out;
  out << "input=" << name(config.input) << " output=" << name(config.output) << " emax_mode=" << name(config.emax_mode);
  if (config.profile != ProfileId::kNeuron) {
    out << " profile=" << name(config.profile) << " block=" << name(config.block_shape);
  }
  if (!is_fp4(config.output)) out << " fp8_nan=" << name(config.fp8_nan);
  if (is_fp4(config.output)) out << " lane_stride=" << config.fp4_lane_stride << " high_parity=" << config.fp4_high_parity;
  out << " scale_layout=" << name(config.scale_layout);
  return out.str();
}

std::size_t exhaustive_tensors_per_config(Level level) { return level == Level::kGate ? 10 : std::numeric_limits<std::size_t>::max(); }
std::size_t property_cases_per_config(Level level) {
  switch (level) {
    case Level::kGate: return 24;
    case Level::kNightly: return 400;
    case Level::kSoak: return 4000;
  }
  return 0;
}

// The E8M0 values the gate samples: the clamps, the unscaled region, and the largest.
std::vector<int> sample_e8m0(const std::vector<int>& reachable, Level level) {
  if (level != Level::kGate) return reachable;
  std::set<int> wanted = {1, 2, 3, 100, 112, 119, 120, 125, 127, 128, 240, 247, 253, 254};
  std::vector<int> out;
  for (int e : reachable) {
    if (wanted.count(e) != 0) out.push_back(e);
  }
  if (!reachable.empty() && (out.empty() || out.back() != reachable.back())) out.push_back(reachable.back());
  return out;
}

// The oracle's bytes for a case: unnamed physical scale rows expected 0 (left untouched).
void oracle_bytes(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                  std::vector<std::uint8_t>& data, std::vector<std::uint8_t>& scale) {
  const Geometry g = geometry(config);
  data.assign(g.data_bytes, 0);
  scale.assign(g.scale_bytes, 0);
  oracle::quantize(config, input.data(), data.data(), scale.data());
}

// FP4 codes (one per element) packed with the configuration's stride and parity.
std::vector<std::uint8_t> pack_codes(const QuantizeConfig& config, const std::vector<std::uint8_t>& codes) {
  if (!is_fp4(config.output)) return codes;
  std::vector<std::uint8_t> packed(codes.size() / 2, 0);
  for (std::size_t k = 0; k < codes.size(); ++k) {
    const std::size_t position = oracle::nibble_position(k, config.fp4_lane_stride);
    const bool high = static_cast<int>(position % 2) == config.fp4_high_parity;
    packed[position / 2] |= static_cast<std::uint8_t>(high ? codes[k] << 4 : codes[k]);
  }
  return packed;
}

class Runner {
 public:
  Runner(const CertifyOptions& options, IsolatedBackend& backend, Certificate& certificate)
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
    if (is_failure(result.outcome)) record_failure(campaign, case_id, config, input, result, repeatable, origin);
  }

  std::size_t next_index() const { return index_; }

 private:
  void record_failure(const std::string& campaign, const std::string& case_id, const QuantizeConfig& config,
                      const std::vector<std::uint16_t>& input, const CallResult& result, bool repeatable,
                      const corpus::CorpusCase* origin) {
    constexpr std::size_t kMaxFailuresKept = 50;
    if (certificate_.failures.size() >= kMaxFailuresKept) return;
    Failure failure;
    failure.campaign = campaign;
    failure.case_id = case_id;
    failure.configuration = describe(config);
    failure.knobs = knobs_text(config);
    failure.outcome = result.outcome;
    failure.detail = result.detail;
    if (!result.stderr_text.empty()) failure.detail += " [backend stderr: " + result.stderr_text.substr(0, 1024) + "]";
    QuantizeConfig small_config = config;
    std::vector<std::uint16_t> small_input = input;
    // A nondeterministic failure is kept whole: a shrink step could not tell it from a pass.
    if (repeatable && !result.gone_before_call) shrink(result.outcome, small_config, small_input);
    try {
      corpus::CorpusCase repro = corpus::make_repro_case(small_config, small_input, "certify-" + campaign, options_.seed);
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
      failure.repro_yaml = corpus::format_corpus_file({repro}, "mxconform certify: " + std::string(name(result.outcome)) +
                                                                   " of " + backend_.spec() + " in " + campaign + " case " + case_id);
      if (!options_.emit_repro_dir.empty()) {
        failure.repro_path = corpus::write_repro_file(repro, options_.emit_repro_dir);
      }
    } catch (const std::exception& error) {
      failure.repro_yaml = std::string("# no repro: ") + error.what() + "\n";
    }
    certificate_.failures.push_back(failure);
  }

  bool fails_the_same(Outcome wanted, const QuantizeConfig& config, const std::vector<std::uint16_t>& input) {
    std::vector<std::uint8_t> data, scale;
    oracle_bytes(config, input, data, scale);
    return backend_.run(config, input, data, scale).outcome == wanted;
  }

  // A minimal repro: one 8x4 block that still fails the same way, then as many of its elements
  // zeroed as keep it failing. Bounded: hangs cost a timeout per try, crashes a new worker, and
  // the whole run spends at most kShrinkSeconds shrinking (then repros stay as large as they are).
  void shrink(Outcome outcome, QuantizeConfig& config, std::vector<std::uint16_t>& input) {
    const std::size_t max_tries = outcome == Outcome::kHang ? 2 : outcome == Outcome::kCrash ? 16 : 64;
    std::size_t tries = 0;
    const auto started = std::chrono::steady_clock::now();
    const auto over_budget = [&]() {
      const double spent = shrink_seconds_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      return spent > kShrinkSeconds;
    };
    struct Account {  // adds this shrink's time to the run's, however it returns
      double& total;
      std::chrono::steady_clock::time_point since;
      ~Account() { total += std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count(); }
    } account{shrink_seconds_, started};
    if (over_budget()) return;
    if (config.block_shape != BlockShape::k8x4) return;  // the profile campaign's cases are one block already
    QuantizeConfig block = config;
    block.partitions = kBlockRows;
    block.free = kBlockCols;
    if (block.fp4_lane_stride != 0 && (kBlockSize % (2 * block.fp4_lane_stride)) != 0) block.fp4_lane_stride = 0;
    const std::size_t groups = config.partitions / kBlockRows;
    const std::size_t cols = config.free / kBlockCols;
    for (std::size_t b = 0; b < groups * cols && tries < max_tries && !over_budget(); ++b, ++tries) {
      std::vector<std::uint16_t> one(kBlockSize);
      for (std::size_t i = 0; i < kBlockSize; ++i) {
        one[i] = input[((b / cols) * kBlockRows + i / kBlockCols) * config.free + (b % cols) * kBlockCols + i % kBlockCols];
      }
      if (fails_the_same(outcome, block, one)) {
        config = block;
        input = one;
        break;
      }
    }
    if (config.partitions != kBlockRows || config.free != kBlockCols || outcome == Outcome::kHang) return;
    for (std::size_t i = 0; i < kBlockSize && tries < 2 * max_tries && !over_budget(); ++i, ++tries) {
      if (input[i] == 0) continue;
      std::vector<std::uint16_t> simpler = input;
      simpler[i] = 0;
      if (fails_the_same(outcome, config, simpler)) input = simpler;
    }
  }

  static constexpr double kShrinkSeconds = 120;

  const CertifyOptions& options_;
  IsolatedBackend& backend_;
  Certificate& certificate_;
  std::size_t index_ = 0;
  double shrink_seconds_ = 0;  // spent so far in this run
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

void fill_header(const CertifyOptions& options, IsolatedBackend& backend, const std::vector<std::string>& corpus_files,
                 Certificate& certificate) {
  auto& h = certificate.header;
  h["mxconform_version"] = MXCONFORM_VERSION;
  h["mxconform_commit"] = MXCONFORM_GIT_COMMIT;
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
  const bool library = options.backend.find('/') != std::string::npos;
  char resolved[4096];
  const std::string path = library ? (::realpath(options.backend.c_str(), resolved) ? resolved : options.backend)
                                   : (::realpath("/proc/self/exe", resolved) ? resolved : "built-in");
  h["backend_path"] = path;
  h["backend_sha256"] = sha256_file(path);
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
  const QuantizeConfig& k = options.knobs;
  const std::string knob_flags = " --emax-mode " + std::string(name(k.emax_mode)) + " --fp8-nan " + std::string(name(k.fp8_nan)) +
                                 " --lane-stride " + std::to_string(k.fp4_lane_stride) + " --high-parity " +
                                 std::to_string(k.fp4_high_parity) + " --scale-layout " + std::string(name(k.scale_layout)) +
                                 (k.profile == ProfileId::kNeuron ? std::string()
                                                                  : " --profile " + std::string(name(k.profile)) +
                                                                        " --block-shape " + std::string(name(k.block_shape)));
  h["rerun"] = "mxconform certify --backend " + options.backend + " --level " + name(options.level) + " --seed " +
               std::to_string(options.seed) + (options.all_knobs ? " --all-knobs" : knob_flags) + " --shard " +
               std::to_string(options.shard_index) + "/" + std::to_string(options.shard_count) + campaign_flags;
  h["started"] = now_utc();
}

// A new tally for one campaign on one configuration; counted as not supported, with the reason,
// when the backend does not declare the configuration.
Tally& open_tally(Certificate& certificate, IsolatedBackend& backend, const char* campaign, const QuantizeConfig& config) {
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
                          IsolatedBackend& backend, Runner& runner, Certificate& certificate, Progress& progress) {
  std::size_t done = 0;
  const std::size_t random_blocks = property_cases_per_config(options.level);
  for (const QuantizeConfig& config : configs) {
    Tally& tally = open_tally(certificate, backend, "properties", config);
    if (tally.unsupported.empty()) {
      const std::uint64_t config_seed = options.seed * 1000003u + std::hash<std::string>{}(knobs_text(config));
      for (const ProfileCase& c : profile_cases(config, config_seed, random_blocks)) {
        std::vector<std::uint8_t> data, scale;
        oracle_bytes(c.config, c.input, data, scale);
        runner.run_case(tally, "properties", c.id, c.config, c.input, data, scale);
      }
    }
    progress("properties", ++done, configs.size());
  }
}

Certificate run_certification(const CertifyOptions& options) {
  if (options.shard_count == 0 || options.shard_index >= options.shard_count) {
    throw Error("shard " + std::to_string(options.shard_index) + "/" + std::to_string(options.shard_count) +
                ": the index must be below the count");
  }
  Certificate certificate;
  IsolatedBackend backend(options.backend, WorkerLimits{options.timeout_seconds, options.memory_limit_bytes});
  const std::vector<std::string> corpus_files =
      wants(options, "corpus") ? corpus::find_corpus_files(options.corpus_paths) : std::vector<std::string>{};
  fill_header(options, backend, corpus_files, certificate);
  if (certificate.header.count("load_error") != 0) {
    certificate.header["finished"] = now_utc();
    certificate.header["verdict"] = "not certified";
    return certificate;
  }
  Runner runner(options, backend, certificate);
  const std::vector<QuantizeConfig> configs = configurations(options);
  for (const QuantizeConfig& c : configs) certificate.configurations.push_back(knobs_text(c));

  auto progress = [&](const std::string& stage, std::size_t done, std::size_t total) {
    if (options.progress) options.progress(stage, done, total);
  };

  // 1. The corpus: every case, with its own configuration.
  if (wants(options, "corpus")) {
    const auto cases = corpus::load_corpus(options.corpus_paths);
    std::map<std::string, std::size_t> tally_of;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const corpus::CorpusCase& c = cases[i];
      const std::string key = knobs_text(c.config);
      if (tally_of.count(key) == 0) {
        tally_of[key] = certificate.tallies.size();
        certificate.tallies.push_back({"corpus", key, std::string(name(c.config.output)), {}, {}});
      }
      std::vector<std::uint8_t> data(c.data.size()), scale(c.scale.size());
      for (std::size_t j = 0; j < data.size(); ++j) data[j] = c.data[j].value_or(0);
      for (std::size_t j = 0; j < scale.size(); ++j) scale[j] = c.scale[j].value_or(0);
      runner.run_case(certificate.tallies[tally_of[key]], "corpus", c.id, c.config, c.input, data, scale, &c);
      progress("corpus", i + 1, cases.size());
    }
  }

  // 2. The exhaustive element campaign, per configuration.
  if (wants(options, "exhaustive") && options.knobs.profile == ProfileId::kNeuron) {
    std::size_t done = 0;
    for (const QuantizeConfig& config : configs) {
      Tally& tally = open_tally(certificate, backend, "exhaustive", config);
      if (!tally.unsupported.empty()) {
        progress("exhaustive", ++done, configs.size());
        continue;
      }
      ExhaustiveCampaign campaign(config.input, config.output, config.emax_mode, config.fp8_nan);
      std::size_t tensors = 0;
      for (int e8m0 : sample_e8m0(campaign.reachable_e8m0(), options.level)) {
        if (tensors++ >= exhaustive_tensors_per_config(options.level)) break;
        for (ExhaustiveTensor& t : campaign.tensors(e8m0)) {
          t.config.fp4_lane_stride = config.fp4_lane_stride;
          t.config.fp4_high_parity = config.fp4_high_parity;
          t.config.scale_layout = config.scale_layout;  // one partition group: both layouts are one row
          runner.run_case(tally, "exhaustive", "e8m0-" + std::to_string(e8m0) + "-" + t.context, t.config, t.input,
                          pack_codes(t.config, t.codes), t.expected_scale);
        }
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
    const std::size_t per_config = property_cases_per_config(options.level);
    for (const QuantizeConfig& config : configs) {
      Tally& tally = open_tally(certificate, backend, "properties", config);
      if (!tally.unsupported.empty()) {
        progress("properties", ++done, configs.size());
        continue;
      }
      // First one single-block case per class the configuration promises (class_cases.h), then
      // cases of the property suite's generators up to the level's count.
      const std::uint64_t config_seed = options.seed * 1000003u + std::hash<std::string>{}(knobs_text(config));
      std::vector<properties::QuantizeCase> cases = properties::class_cases(config, config_seed);
      properties::CaseSpace space;
      space.outputs = {config.output};
      space.max_block_rows = 16;
      space.max_block_cols = 64;
      const auto generator = properties::quantize_cases(space);
      for (std::size_t i = cases.size(); i < per_config; ++i) {
        constexpr int kMaxSize = 100;  // RapidCheck's generation size stays at or below 100
        const rc::Random random(config_seed + i);
        cases.push_back(generator(random, static_cast<int>(i * 7 % (kMaxSize + 1))).value());
      }
      properties::Coverage config_coverage;
      for (std::size_t i = 0; i < cases.size(); ++i) {
        properties::QuantizeCase& c = cases[i];
        QuantizeConfig run_config = config;
        run_config.partitions = c.config.partitions;
        run_config.free = c.config.free;
        const std::size_t window = 2 * static_cast<std::size_t>(std::max<std::uint32_t>(1, run_config.fp4_lane_stride));
        if ((run_config.partitions * run_config.free) % window != 0) run_config.fp4_lane_stride = 0;
        c.config = run_config;
        coverage.add(c);
        config_coverage.add(c);
        std::vector<std::uint8_t> data, scale;
        oracle_bytes(run_config, c.input, data, scale);
        runner.run_case(tally, "properties", "case-" + std::to_string(i), run_config, c.input, data, scale);
      }
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
