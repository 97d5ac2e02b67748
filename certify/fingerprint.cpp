#include "fingerprint.h"

#include "command_backend.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "call_grade.h"
#include "element_syntax.h"
#include "mxconform/safe_text.h"
#include "oracle.h"

namespace mxconform::certify {
namespace {

constexpr std::size_t kBlockElements = 32;

std::vector<std::uint16_t> block_of(const std::vector<std::string>& values, const std::string& rest = "0") {
  std::vector<std::uint16_t> input(kBlockElements, corpus::parse_element(rest, InputDtype::kBfloat16));
  for (std::size_t i = 0; i < values.size(); ++i) input[i] = corpus::parse_element(values[i], InputDtype::kBfloat16);
  return input;
}

// FP4 codes 0..15 scattered so that every lane stride and parity places them differently; the
// block max 6 (code 7) gives scale 2^0 under every floor and RCEIL rule.
std::vector<std::uint16_t> nibble_block() {
  const char* const kValueOfCode[] = {"0", "0.5", "1", "1.5", "2", "3", "4", "6",
                                      "-0", "-0.5", "-1", "-1.5", "-2", "-3", "-4", "-6"};
  constexpr std::size_t kCodes = 16;
  std::vector<std::string> values;
  for (std::size_t k = 0; k < kBlockElements; ++k) values.push_back(kValueOfCode[(k * 11 + (k / kCodes) * 5 + 3) % kCodes]);
  return block_of(values);
}

// The bytes the oracle gives `knobs` (a known configuration) for one deciding block; false when
// the configuration does not cover the case's dtype.
bool expected_bytes(const QuantizeConfig& knobs, const DecidingCase& c, std::vector<std::uint8_t>& data,
                    std::vector<std::uint8_t>& scale) {
  QuantizeConfig config;
  if (!deciding_config(knobs, c, config)) return false;
  oracle_bytes(config, c.input, data, scale);
  return true;
}

// A case the subject did not run (declined, or no output in a bundle) counts for no configuration.
bool not_run(Outcome outcome) { return outcome == Outcome::kUnsupported || outcome == Outcome::kMissingOutput; }

// The first declared value of a knob mask, preferring `preferred`.
template <typename Enum>
Enum declared_or_first(std::uint32_t mask, Enum preferred) {
  if ((mask >> static_cast<std::uint32_t>(preferred) & 1) != 0) return preferred;
  for (std::uint32_t bit = 0; bit < 32; ++bit) {
    if ((mask >> bit & 1) != 0) return static_cast<Enum>(bit);
  }
  return preferred;
}

}  // namespace

bool deciding_config(const QuantizeConfig& knobs, const DecidingCase& c, QuantizeConfig& config) {
  config = knobs;
  config.input = InputDtype::kBfloat16;
  config.output = c.output;
  const BlockExtent block = extent(config.block_shape);
  config.partitions = block.rows;
  config.free = block.cols;
  if (!is_fp4(config.output)) {
    config.fp4_lane_stride = 0;
    config.fp4_high_parity = 1;
  }
  try {
    validate(config);
  } catch (const Error&) {
    return false;
  }
  return true;
}

void for_each_deciding_case(const QuantizeConfig& call, const CaseVisitor& visit) {
  for (const DecidingCase& c : deciding_cases()) {
    CampaignCase out;
    if (!deciding_config(call, c, out.config)) continue;
    out.campaign = kFingerprintCampaign;
    out.id = c.id;
    out.input = c.input;
    oracle_bytes(out.config, out.input, out.expected_data, out.expected_scale);
    visit(out);
  }
}

std::vector<KnownConfiguration> known_configurations() {
  std::vector<KnownConfiguration> known;
  for (EmaxMode mode : {EmaxMode::kEmax, EmaxMode::kEmaxMinus1}) {
    for (Fp8NanPolicy nan : {Fp8NanPolicy::kCanonical, Fp8NanPolicy::kZero}) {
      for (std::uint32_t stride : {0u, 2u, 4u, 8u, 16u}) {
        for (int parity : {1, 0}) {
          QuantizeConfig k;
          k.emax_mode = mode;
          k.fp8_nan = nan;
          k.fp4_lane_stride = stride;
          k.fp4_high_parity = parity;
          known.push_back({k, "neuron emax_mode=" + std::string(name(mode)) + " fp8_nan=" + std::string(name(nan)) +
                                  " lane_stride=" + std::to_string(stride) + " high_parity=" + std::to_string(parity)});
        }
      }
    }
  }
  for (const Profile& p : profiles()) {
    if (p.id == ProfileId::kNeuron) continue;
    for (EmaxMode mode : {EmaxMode::kEmax, EmaxMode::kEmaxMinus1}) {
      if ((p.emax_modes >> static_cast<std::uint32_t>(mode) & 1) == 0) continue;
      QuantizeConfig k;
      apply_profile(k, p.id);
      k.emax_mode = mode;
      const bool both = p.emax_modes == 0b11;
      known.push_back({k, std::string(p.name) + (both ? " emax_mode=" + std::string(name(mode)) : "")});
    }
  }
  return known;
}

std::string_view name(Axis axis) {
  switch (axis) {
    case Axis::kZeroBlock: return "zero block";
    case Axis::kScaleRule: return "scale rule";
    case Axis::kEmaxMode: return "EMAX mode";
    case Axis::kSpecials: return "NaN/Inf in a block";
    case Axis::kFp8NanPolicy: return "FP8 NaN code";
    case Axis::kElementTies: return "element ties";
    case Axis::kNibbleOrder: return "FP4 nibble order";
  }
  return "?";
}

std::string axis_value(Axis axis, const QuantizeConfig& knobs) {
  const Profile& p = profile(knobs.profile);
  switch (axis) {
    case Axis::kZeroBlock:
      if (p.zero_block_e8m0 < 0) return "E8M0 (0 - emaxBias) as uint8";
      return "E8M0 " + std::to_string(p.zero_block_e8m0) + (p.zero_block_e8m0 == 1 ? " (ZERO-FLOOR)" : "");
    case Axis::kScaleRule: return std::string(name(p.scale_rule));
    case Axis::kEmaxMode: return std::string(name(knobs.emax_mode));
    case Axis::kSpecials: return std::string(name(p.specials));
    case Axis::kFp8NanPolicy: return std::string(name(knobs.fp8_nan));
    case Axis::kElementTies: return std::string(name(p.rounding));
    case Axis::kNibbleOrder:
      return "lane stride " + std::to_string(knobs.fp4_lane_stride) + ", high parity " + std::to_string(knobs.fp4_high_parity);
  }
  return "?";
}

const std::vector<DecidingCase>& deciding_cases() {
  static const std::vector<DecidingCase> kCases = {
      {"zero-block.e4m3", Axis::kZeroBlock, OutputDtype::kFloat8E4m3fn, block_of({}), 0},
      {"scale.small-field.e4m3", Axis::kScaleRule, OutputDtype::kFloat8E4m3fn, block_of({"0x1p-120", "0x1p-122"}), 0},
      {"scale.amax-480.e4m3", Axis::kScaleRule, OutputDtype::kFloat8E4m3fn, block_of({"480", "240"}), 0},
      {"scale.amax-7.fp4", Axis::kScaleRule, OutputDtype::kFloat4E2m1fnX4, block_of({"7", "3"}), 0},
      {"scale.amax-5.fp4", Axis::kScaleRule, OutputDtype::kFloat4E2m1fnX4, block_of({"5", "3"}), 0},
      {"emax.amax-4.e4m3", Axis::kEmaxMode, OutputDtype::kFloat8E4m3fn, block_of({"4", "1"}), 0},
      {"specials.nan.e4m3", Axis::kSpecials, OutputDtype::kFloat8E4m3fn, block_of({"nan"}, "1"), 1},
      {"specials.inf.e4m3", Axis::kSpecials, OutputDtype::kFloat8E4m3fn, block_of({"inf"}, "1"), 0},
      {"fp8-nan.e4m3", Axis::kFp8NanPolicy, OutputDtype::kFloat8E4m3fn, block_of({"nan", "2"}), 0},
      {"fp8.tie.1.0625", Axis::kElementTies, OutputDtype::kFloat8E4m3fn, block_of({"256", "1.0625"}), 1},
      {"fp4.ties", Axis::kElementTies, OutputDtype::kFloat4E2m1fnX4,
       block_of({"5", "0.25", "0.75", "1.25", "1.75", "2.5", "3.5", "4"}), 1},
      {"fp4.nibbles", Axis::kNibbleOrder, OutputDtype::kFloat4E2m1fnX4, nibble_block(), 0},
  };
  return kCases;
}

bool Fingerprint::decided() const {
  const auto matches = std::count_if(scores.begin(), scores.end(), [](const ConfigurationScore& s) { return s.disagreeing.empty(); });
  return matches == 1;
}

Fingerprint take_fingerprint(const std::string& backend_spec, const WorkerLimits& limits) {
  const std::unique_ptr<WorkerBackend> worker = make_worker_backend(backend_spec, limits);  // a plug-in, a built-in or a command
  WorkerBackend& backend = *worker;
  const Capabilities& declared = backend.info().capabilities;
  Fingerprint fingerprint;
  fingerprint.backend = backend_spec;
  // 1. The calls: the subject's own profile (neuron when declared) with default or declared knobs.
  QuantizeConfig& call = fingerprint.call;
  const ProfileId declared_profile = declared_or_first(declared.profiles, ProfileId::kNeuron);
  if (declared_profile != ProfileId::kNeuron) apply_profile(call, declared_profile);
  call.block_shape = declared_or_first(declared.block_shapes & profile(call.profile).block_shapes, call.block_shape);
  call.emax_mode = declared_or_first(declared.emax_modes & profile(call.profile).emax_modes, call.emax_mode);
  call.fp8_nan = declared_or_first(declared.fp8_nan_policies & profile(call.profile).fp8_nan_policies, call.fp8_nan);
  call.scale_layout = declared_or_first(declared.scale_layouts & profile(call.profile).scale_layouts, call.scale_layout);
  call.fp4_high_parity = declared_or_first(declared.fp4_high_parities, 1);
  // 2. Each deciding case on the subject.
  for (const DecidingCase& c : deciding_cases()) {
    CaseObservation seen;
    seen.deciding = &c;
    QuantizeConfig config;
    if (!deciding_config(call, c, config)) {
      seen.outcome = Outcome::kUnsupported;
      seen.detail = "the subject's profile has no " + std::string(name(c.output));
      fingerprint.cases.push_back(seen);
      continue;
    }
    std::vector<std::uint8_t> data, scale;
    oracle_bytes(config, c.input, data, scale);
    const CallResult result = backend.run(config, c.input, data, scale);
    seen.outcome = result.outcome;
    seen.detail = result.detail;
    seen.data = result.data;
    seen.scale = result.scale;
    fingerprint.cases.push_back(seen);
  }
  score(fingerprint);
  return fingerprint;
}

void score(Fingerprint& fingerprint) {
  // Each known configuration against what the subject wrote.
  static const std::vector<KnownConfiguration> known = known_configurations();  // scores point into it
  fingerprint.scores.clear();
  for (const KnownConfiguration& k : known) {
    ConfigurationScore score{&k, {}};
    for (CaseObservation& seen : fingerprint.cases) {
      if (not_run(seen.outcome)) continue;
      std::vector<std::uint8_t> data, scale;
      const bool covered = expected_bytes(k.knobs, *seen.deciding, data, scale);
      const bool returned = seen.outcome == Outcome::kPass || seen.outcome == Outcome::kWrongResult;
      if (covered && returned && data == seen.data && scale == seen.scale) {
        const std::string reading = axis_value(seen.deciding->axis, k.knobs);
        if (std::find(seen.readings.begin(), seen.readings.end(), reading) == seen.readings.end()) {
          seen.readings.push_back(reading);
        }
      } else {
        score.disagreeing.push_back(seen.deciding->id);
      }
    }
    fingerprint.scores.push_back(score);
  }
  std::stable_sort(fingerprint.scores.begin(), fingerprint.scores.end(),
                   [](const ConfigurationScore& a, const ConfigurationScore& b) {
                     return a.disagreeing.size() < b.disagreeing.size();
                   });
}

Fingerprint fingerprint_of_bundle(const GradeOptions& options) {
  Fingerprint fingerprint;
  std::map<std::string, CaseObservation> seen_by_id;
  bool first = true;
  const Certificate graded = grade_bundle(options, [&](const CampaignCase& c, const CallGrade& grade,
                                                       const std::vector<std::uint8_t>& data,
                                                       const std::vector<std::uint8_t>& scale) {
    if (c.campaign != kFingerprintCampaign) {
      throw Error(options.directory + ": a bundle of the " + c.campaign + " campaign; fingerprint --bundle reads the "
                  "bundle `mxconform fingerprint --export-bundle` writes (campaigns: [fingerprint])");
    }
    if (first) fingerprint.call = c.config;
    first = false;
    CaseObservation seen;
    seen.outcome = grade.outcome;
    seen.detail = grade.detail;
    seen.data = data;
    seen.scale = scale;
    seen_by_id[c.id] = seen;
  });
  fingerprint.backend = graded.header.count("bundle") != 0 ? "bundle:" + graded.header.at("bundle") : options.directory;
  for (const DecidingCase& c : deciding_cases()) {
    const auto found = seen_by_id.find(c.id);
    CaseObservation seen;
    if (found != seen_by_id.end()) {
      seen = found->second;
    } else {
      seen.outcome = Outcome::kUnsupported;
      seen.detail = "the bundle's profile has no " + std::string(name(c.output));
    }
    seen.deciding = &c;
    fingerprint.cases.push_back(seen);
  }
  score(fingerprint);
  return fingerprint;
}

std::string to_text(const Fingerprint& fingerprint) {
  std::ostringstream out;
  out << "fingerprint of " << safe_text(fingerprint.backend) << "\n"
      << "calls: profile " << name(fingerprint.call.profile) << ", block " << name(fingerprint.call.block_shape)
      << ", emax_mode=" << name(fingerprint.call.emax_mode) << " fp8_nan=" << name(fingerprint.call.fp8_nan)
      << " high_parity=" << fingerprint.call.fp4_high_parity << ", bfloat16 input, one block per case\n\n";
  for (const CaseObservation& seen : fingerprint.cases) {
    const DecidingCase& c = *seen.deciding;
    std::string reading;
    if (seen.outcome == Outcome::kUnsupported) {
      reading = "not run (" + safe_text(seen.detail) + ")";
    } else if (seen.outcome == Outcome::kMissingOutput) {
      reading = "not run (missing-output: " + safe_text(seen.detail) + ")";
    } else if (seen.outcome != Outcome::kPass && seen.outcome != Outcome::kWrongResult) {
      reading = std::string(certify::name(seen.outcome)) + ": " + safe_text(seen.detail);
    } else if (seen.readings.empty()) {
      reading = "no known reading";
    } else {
      for (const std::string& r : seen.readings) reading += (reading.empty() ? "" : " | ") + r;
    }
    out << "  " << name(c.axis) << ": " << reading << " — case " << c.id;
    if (!seen.scale.empty() && !seen.data.empty()) {
      out << ": scale " << hex_byte(seen.scale[0]) << ", data[" << c.focus << "] "
          << hex_byte(seen.data[std::min(c.focus, seen.data.size() - 1)]);
    }
    out << "\n";
  }
  out << "\n";
  std::vector<const ConfigurationScore*> matching;
  for (const ConfigurationScore& s : fingerprint.scores) {
    if (s.disagreeing.empty()) matching.push_back(&s);
  }
  if (matching.size() == 1) {
    out << "matches every case: " << matching[0]->known->label << "\n";
  } else if (matching.size() > 1) {
    out << "ambiguous: " << matching.size() << " known configurations match every case:\n";
    for (const ConfigurationScore* s : matching) out << "  " << s->known->label << "\n";
  } else {
    out << "no known profile matches every case; nearest:\n";
    constexpr std::size_t kNearest = 3;
    for (std::size_t i = 0; i < fingerprint.scores.size() && i < kNearest; ++i) {
      const ConfigurationScore& s = fingerprint.scores[i];
      std::string cases;
      for (const std::string& id : s.disagreeing) cases += (cases.empty() ? "" : ", ") + id;
      out << "  " << s.known->label << " — disagrees on " << s.disagreeing.size() << ": " << cases << "\n";
    }
  }
  return out.str();
}

}  // namespace mxconform::certify
