#include "fingerprint.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "call_grade.h"
#include "certification.h"
#include "corpus_loader.h"
#include "mxconform/difference.h"
#include "element_syntax.h"
#include "mxconform/safe_text.h"
#include "oracle.h"
#include "profile_campaign.h"
#include "worker_backend.h"

namespace mxconform::certify {
namespace {

constexpr std::size_t kBlockElements = 32;

// 32 element values: `values`, then `rest`.
std::vector<std::string> block_values(const std::vector<std::string>& values, const std::string& rest = "0") {
  std::vector<std::string> block(kBlockElements, rest);
  for (std::size_t i = 0; i < values.size(); ++i) block[i] = values[i];
  return block;
}

std::vector<std::uint16_t> parse_block(const std::vector<std::string>& values, InputDtype dtype) {
  std::vector<std::uint16_t> input;
  for (const std::string& v : values) input.push_back(corpus::parse_element(v, dtype));
  return input;
}

DecidingCase deciding(std::string id, Axis axis, OutputDtype output, const std::vector<std::string>& values,
                      std::size_t focus, const std::string& rest = "0", const std::vector<std::string>& e5m2 = {}) {
  DecidingCase c{std::move(id), axis, output, {}, focus, InputDtype::kBfloat16, {}, {}};
  c.values = block_values(values, rest);
  c.input = parse_block(c.values, InputDtype::kBfloat16);
  if (!e5m2.empty()) c.e5m2_values = block_values(e5m2, rest);
  return c;
}

// FP4 codes 0..15 scattered so that every lane stride and parity places them differently; the
// block max 6 (code 7) gives scale 2^0 under every floor and RCEIL rule.
std::vector<std::string> nibble_block() {
  const char* const kValueOfCode[] = {"0", "0.5", "1", "1.5", "2", "3", "4", "6",
                                      "-0", "-0.5", "-1", "-1.5", "-2", "-3", "-4", "-6"};
  constexpr std::size_t kCodes = 16;
  std::vector<std::string> values;
  for (std::size_t k = 0; k < kBlockElements; ++k) values.push_back(kValueOfCode[(k * 11 + (k / kCodes) * 5 + 3) % kCodes]);
  return values;
}

// The bytes the oracle gives `knobs` (a known configuration) for one deciding block, with the ones
// the profile leaves unspecified taken from `actual` (with_unspecified_from); false when the
// configuration does not cover the case's dtype.
bool expected_bytes(const QuantizeConfig& knobs, const DecidingCase& c, const std::vector<std::uint8_t>& actual,
                    std::vector<std::uint8_t>& data, std::vector<std::uint8_t>& scale) {
  QuantizeConfig config;
  if (!deciding_config(knobs, c, config)) return false;
  const std::vector<std::uint16_t> input = deciding_input(config, c.input);
  oracle_bytes(config, input, data, scale);
  data = with_unspecified_from(config, input, scale, std::move(data), actual);
  return true;
}

// A known configuration's knobs in the block shape of the calls, when its profile admits that
// shape (a single block reads the same in every shape; four 32x1 blocks side by side do not).
QuantizeConfig in_call_shape(QuantizeConfig knobs, const QuantizeConfig& call) {
  if ((profile(knobs.profile).block_shapes >> static_cast<std::uint32_t>(call.block_shape) & 1) != 0) {
    knobs.block_shape = call.block_shape;
  }
  return knobs;
}

// The data byte that holds the first element of deciding case `c`'s focus byte in `config`'s
// shape: `c.focus` for one block; the first copy's byte when the block is repeated (block_copies).
std::size_t focus_byte(const QuantizeConfig& config, const DecidingCase& c) {
  const BlockExtent block = extent(config.block_shape);
  const std::size_t element = is_fp4(config.output) ? 2 * c.focus : c.focus;
  const std::size_t at = element / block.cols * config.free + element % block.cols;
  return is_fp4(config.output) ? at / 2 : at;
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
  config.input = c.input_dtype;
  config.output = c.output;
  campaign_shape(config);  // one block; four side by side for an x4 dtype under 32x1 (F % 4 == 0)
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

std::vector<std::uint16_t> deciding_input(const QuantizeConfig& config, const std::vector<std::uint16_t>& block) {
  return block_copies(config, block);  // the profile campaign's layout: copy k rotated by k elements
}

void for_each_deciding_case(const QuantizeConfig& call, const CaseVisitor& visit) {
  for (const DecidingCase& c : deciding_cases()) {
    CampaignCase out;
    if (!deciding_config(call, c, out.config)) continue;
    out.campaign = kFingerprintCampaign;
    out.id = c.id;
    out.input = deciding_input(out.config, c.input);
    oracle_bytes(out.config, out.input, out.expected_data, out.expected_scale);
    visit(out);
  }
}

namespace {

constexpr std::uint32_t bit(OutputDtype dtype) { return 1u << static_cast<std::uint32_t>(dtype); }
constexpr std::uint32_t bit(InputDtype dtype) { return 1u << static_cast<std::uint32_t>(dtype); }
constexpr std::uint32_t kFp4Outputs = bit(OutputDtype::kFloat4E2m1fnX4);
constexpr std::uint32_t kFp8Outputs = bit(OutputDtype::kFloat8E4m3fn) | bit(OutputDtype::kFloat8E5m2) |
                                      bit(OutputDtype::kFloat8E4m3fnX4) | bit(OutputDtype::kFloat8E5m2X4);

// `c` with output `output` and input `input`; false when a value is not exact in `input`.
bool in_dtypes(const DecidingCase& c, OutputDtype output, InputDtype input, DecidingCase& out) {
  out = c;
  out.output = output;
  out.input_dtype = input;
  const bool e5m2 = info(output).element == ElementKind::kFp8E5m2;
  if (e5m2 && !c.e5m2_values.empty()) out.values = c.e5m2_values;
  try {
    out.input = parse_block(out.values, input);
  } catch (const Error&) {
    return false;
  }
  if (input != c.input_dtype || output != c.output) out.id = c.id + "@" + std::string(name(input)) + ">" + std::string(name(output));
  return true;
}

// The oracle's bytes of `c` under each known configuration (empty when it does not admit `c`).
std::vector<std::vector<std::uint8_t>> bytes_per_configuration(const DecidingCase& c) {
  static const std::vector<KnownConfiguration> known = known_configurations();
  std::vector<std::vector<std::uint8_t>> out;
  for (const KnownConfiguration& k : known) {
    QuantizeConfig config;
    std::vector<std::uint8_t> data, scale;
    if (deciding_config(k.knobs, c, config)) {
      oracle_bytes(config, deciding_input(config, c.input), data, scale);
      data.insert(data.end(), scale.begin(), scale.end());
      data.push_back(1);  // never empty when admitted
    }
    out.push_back(data);
  }
  return out;
}

// Every two configurations that admit both cases and that `original` tells apart, `variant`
// tells apart too.
bool still_decides(const DecidingCase& original, const DecidingCase& variant) {
  const auto a = bytes_per_configuration(original);
  const auto b = bytes_per_configuration(variant);
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = i + 1; j < a.size(); ++j) {
      if (a[i].empty() || a[j].empty() || b[i].empty() || b[j].empty()) continue;
      if (a[i] != a[j] && b[i] == b[j]) return false;
    }
  }
  return true;
}

}  // namespace

bool adapt_deciding_case(const DecidingCase& c, const Capabilities& declared, DecidingCase& adapted) {
  const bool output_declared = (declared.output_dtypes & bit(c.output)) != 0;
  const bool input_declared = (declared.input_dtypes & bit(c.input_dtype)) != 0;
  if (output_declared && input_declared) {
    adapted = c;
    return true;
  }
  std::vector<InputDtype> inputs;
  for (InputDtype in : {c.input_dtype, InputDtype::kBfloat16, InputDtype::kFloat16}) {
    if ((declared.input_dtypes & bit(in)) != 0 && std::find(inputs.begin(), inputs.end(), in) == inputs.end()) {
      inputs.push_back(in);
    }
  }
  std::vector<OutputDtype> outputs;
  const std::uint32_t kind = is_fp4(c.output) ? kFp4Outputs : kFp8Outputs;
  if (output_declared) outputs.push_back(c.output);
  for (const OutputDtypeInfo& o : output_dtypes()) {
    if (o.id != c.output && (kind & bit(o.id)) != 0 && (declared.output_dtypes & bit(o.id)) != 0) outputs.push_back(o.id);
  }
  for (OutputDtype out : outputs) {
    for (InputDtype in : inputs) {
      DecidingCase variant;
      if (in_dtypes(c, out, in, variant) && still_decides(c, variant)) {
        adapted = variant;
        return true;
      }
    }
  }
  return false;
}

std::vector<Axis> not_applicable_axes(const Capabilities& declared) {
  std::vector<Axis> axes;
  if ((declared.output_dtypes & kFp4Outputs) == 0) axes.push_back(Axis::kNibbleOrder);
  if ((declared.output_dtypes & kFp8Outputs) == 0) axes.push_back(Axis::kFp8NanPolicy);
  return axes;
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
  // e5m2 (max 57344, 2 mantissa bits) has its own tie (1.125 under 256) and an amax past its
  // largest finite value (61440) where e4m3 has 1.0625 and 480.
  static const std::vector<DecidingCase> kCases = {
      deciding("zero-block.e4m3", Axis::kZeroBlock, OutputDtype::kFloat8E4m3fn, {}, 0),
      deciding("scale.small-field.e4m3", Axis::kScaleRule, OutputDtype::kFloat8E4m3fn, {"0x1p-120", "0x1p-122"}, 0),
      deciding("scale.amax-480.e4m3", Axis::kScaleRule, OutputDtype::kFloat8E4m3fn, {"480", "240"}, 0, "0",
               {"61440", "30720"}),
      deciding("scale.amax-7.fp4", Axis::kScaleRule, OutputDtype::kFloat4E2m1fnX4, {"7", "3"}, 0),
      deciding("scale.amax-5.fp4", Axis::kScaleRule, OutputDtype::kFloat4E2m1fnX4, {"5", "3"}, 0),
      deciding("emax.amax-4.e4m3", Axis::kEmaxMode, OutputDtype::kFloat8E4m3fn, {"4", "1"}, 0),
      deciding("specials.nan.e4m3", Axis::kSpecials, OutputDtype::kFloat8E4m3fn, {"nan"}, 1, "1"),
      deciding("specials.inf.e4m3", Axis::kSpecials, OutputDtype::kFloat8E4m3fn, {"inf"}, 0, "1"),
      deciding("fp8-nan.e4m3", Axis::kFp8NanPolicy, OutputDtype::kFloat8E4m3fn, {"nan", "2"}, 0),
      deciding("fp8.tie.1.0625", Axis::kElementTies, OutputDtype::kFloat8E4m3fn, {"256", "1.0625"}, 1, "0",
               {"256", "1.125"}),
      deciding("fp4.ties", Axis::kElementTies, OutputDtype::kFloat4E2m1fnX4,
               {"5", "0.25", "0.75", "1.25", "1.75", "2.5", "3.5", "4"}, 1),
      deciding("fp4.nibbles", Axis::kNibbleOrder, OutputDtype::kFloat4E2m1fnX4, nibble_block(), 0),
  };
  return kCases;
}

std::size_t Fingerprint::cases_run() const {
  return static_cast<std::size_t>(
      std::count_if(cases.begin(), cases.end(), [](const CaseObservation& seen) { return !not_run(seen.outcome); }));
}

std::vector<std::string> Fingerprint::matching_labels() const {
  std::vector<std::string> labels;
  if (cases_run() == 0) return labels;
  for (const ConfigurationScore& s : scores) {
    if (s.disagreeing.empty() && std::find(labels.begin(), labels.end(), s.label) == labels.end()) labels.push_back(s.label);
  }
  return labels;
}

bool Fingerprint::decided() const {
  return matching_labels().size() == 1 && confirmation_failed == 0 && (!confirmation_ran || confirmation_cases > 0);
}

namespace {

// `label` with the value of each `key=` token replaced by "n/a".
std::string without_knobs(std::string label, const std::vector<std::string>& keys) {
  for (const std::string& key : keys) {
    const std::size_t at = label.find(" " + key + "=");
    if (at == std::string::npos) continue;
    const std::size_t value = at + key.size() + 2;
    const std::size_t end = label.find(' ', value);
    label.replace(value, (end == std::string::npos ? label.size() : end) - value, "n/a");
  }
  return label;
}

constexpr std::size_t kConfirmationFailuresListed = 5;
constexpr std::size_t kGeneratedPerConfiguration = 40;

// The block shapes the confirmation runs in: the calls' first, then every other one the subject
// declares and both the matched profile and the calls' profile admit.
std::vector<BlockShape> confirmation_shapes(const QuantizeConfig& matched, const QuantizeConfig& call,
                                            const Capabilities& declared) {
  const std::uint32_t admitted =
      declared.block_shapes & profile(matched.profile).block_shapes & profile(call.profile).block_shapes;
  std::vector<BlockShape> shapes;
  if ((admitted >> static_cast<std::uint32_t>(call.block_shape) & 1) != 0) shapes.push_back(call.block_shape);
  for (std::uint32_t s = 0; s < kBlockShapeCount; ++s) {
    const auto shape = static_cast<BlockShape>(s);
    if ((admitted >> s & 1) != 0 && shape != call.block_shape) shapes.push_back(shape);
  }
  return shapes;
}

// The confirmation campaign of take_fingerprint against `matched`, in each of confirmation_shapes
// (the budget of kMaxConfirmationCases shared evenly among them).
void confirm(Fingerprint& fingerprint, const QuantizeConfig& matched, WorkerBackend& backend) {
  fingerprint.confirmation_ran = true;
  const std::vector<BlockShape> shapes = confirmation_shapes(matched, fingerprint.call, backend.info().capabilities);
  if (shapes.empty()) return;
  const std::vector<corpus::CorpusCase> corpus = corpus::load_corpus({default_corpus_directory()});
  const std::size_t per_shape = kMaxConfirmationCases / shapes.size();
  for (BlockShape block_shape : shapes) {
    const std::size_t limit = fingerprint.confirmation_cases + per_shape;
    QuantizeConfig call = fingerprint.call, expected_knobs = matched;
    call.block_shape = block_shape;
    expected_knobs.block_shape = block_shape;
    // One case: expected under the matched knobs, called with the calls' knobs, on the same tensor.
    const auto run_case = [&](const std::string& id, const QuantizeConfig& shape, const std::vector<std::uint16_t>& input) {
      if (fingerprint.confirmation_cases >= limit) return;
      QuantizeConfig expected = shape, called = shape;
      for (QuantizeConfig* c : {&expected, &called}) {
        const QuantizeConfig& knobs = c == &expected ? expected_knobs : call;
        c->profile = knobs.profile;
        c->block_shape = knobs.block_shape;
        c->emax_mode = knobs.emax_mode;
        c->fp8_nan = knobs.fp8_nan;
        c->scale_layout = call.scale_layout;
        c->fp4_lane_stride = is_fp4(c->output) ? knobs.fp4_lane_stride : 0;
        c->fp4_high_parity = is_fp4(c->output) ? knobs.fp4_high_parity : 1;
      }
      try {
        validate(expected);
        validate(called);
      } catch (const Error&) {
        return;
      }
      if (!backend.info().undeclared(called).empty()) return;
      std::vector<std::uint8_t> data, scale;
      oracle_bytes(expected, input, data, scale);
      const CallResult result = backend.run(called, input, data, scale);
      if (result.outcome == Outcome::kUnsupported) return;  // declined before the call
      ++fingerprint.confirmation_cases;
      if (!is_failure(result.outcome)) return;
      ++fingerprint.confirmation_failed;
      if (fingerprint.confirmation_failures.size() >= kConfirmationFailuresListed) return;
      std::string difference = std::string(name(result.outcome)) + ": " + result.detail;
      if (result.outcome == Outcome::kWrongResult) {
        const Comparison comparison = compare(called, input, data, scale, result.data, result.scale);
        if (!comparison.equal()) difference = comparison_text(comparison);
      }
      fingerprint.confirmation_failures.push_back({id, describe(called), difference});
    };
    // The corpus cases of the matched profile in this block shape.
    for (const corpus::CorpusCase& k : corpus) {
      if (k.config.profile != matched.profile || k.config.block_shape != block_shape) continue;
      run_case("corpus:" + k.id, k.config, k.input);
    }
    // The first generated cases of each configuration (certify's at gate, seed 1).
    for (const QuantizeConfig& config : campaign_configurations(expected_knobs, false)) {
      std::size_t generated = 0;
      const CaseVisitor visit = [&](const CampaignCase& c) {
        if (generated++ >= kGeneratedPerConfiguration) return;
        run_case(c.campaign + ":" + c.id, c.config, c.input);
      };
      if (matched.profile == ProfileId::kNeuron) {
        for_each_property_case(config, Level::kGate, 1, visit);
      } else {
        for_each_profile_case(config, Level::kGate, 1, visit);
      }
    }
  }
}

}  // namespace

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
  // 2. Each deciding case on the subject, in the dtypes it declares.
  fingerprint.not_applicable = not_applicable_axes(declared);
  for (const DecidingCase& original : deciding_cases()) {
    CaseObservation seen;
    seen.deciding = &original;
    DecidingCase adapted;
    if (!adapt_deciding_case(original, declared, adapted)) {
      seen.outcome = Outcome::kUnsupported;
      const bool fp4 = is_fp4(original.output);
      seen.detail = (declared.output_dtypes & (fp4 ? kFp4Outputs : kFp8Outputs)) == 0
                        ? std::string("the subject declares no ") + (fp4 ? "FP4" : "FP8") + " output dtype"
                        : "no dtype the subject declares keeps the case deciding";
      fingerprint.cases.push_back(seen);
      continue;
    }
    if (adapted.id != original.id) {
      fingerprint.adapted.push_back(std::make_shared<const DecidingCase>(adapted));
      seen.deciding = fingerprint.adapted.back().get();
    }
    const DecidingCase& c = *seen.deciding;
    QuantizeConfig config;
    if (!deciding_config(call, c, config)) {
      seen.outcome = Outcome::kUnsupported;
      seen.detail = "the subject's profile has no " + std::string(name(c.output));
      fingerprint.cases.push_back(seen);
      continue;
    }
    const std::vector<std::uint16_t> input = deciding_input(config, c.input);
    std::vector<std::uint8_t> data, scale;
    oracle_bytes(config, input, data, scale);
    const CallResult result = backend.run(config, input, data, scale);
    seen.outcome = result.outcome;
    seen.detail = result.detail;
    seen.data = result.data;
    seen.scale = result.scale;
    fingerprint.cases.push_back(seen);
  }
  score(fingerprint);
  // 3. One label left: confirm it on the profile's corpus cases and generated cases.
  if (fingerprint.matching_labels().size() == 1) {
    for (const ConfigurationScore& s : fingerprint.scores) {
      if (!s.disagreeing.empty()) continue;
      confirm(fingerprint, s.known->knobs, backend);
      break;
    }
  }
  return fingerprint;
}

void score(Fingerprint& fingerprint) {
  // Each known configuration against what the subject wrote.
  static const std::vector<KnownConfiguration> known = known_configurations();  // scores point into it
  fingerprint.scores.clear();
  for (const KnownConfiguration& k : known) {
    std::vector<std::string> keys;
    for (Axis axis : fingerprint.not_applicable) {
      if (axis == Axis::kNibbleOrder) keys.insert(keys.end(), {"lane_stride", "high_parity"});
      if (axis == Axis::kFp8NanPolicy) keys.push_back("fp8_nan");
    }
    ConfigurationScore score{&k, without_knobs(k.label, keys), {}};
    for (CaseObservation& seen : fingerprint.cases) {
      if (not_run(seen.outcome)) continue;
      std::vector<std::uint8_t> data, scale;
      const bool covered =
          expected_bytes(in_call_shape(k.knobs, fingerprint.call), *seen.deciding, seen.data, data, scale);
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
      << " high_parity=" << fingerprint.call.fp4_high_parity << ", bfloat16 input"
      << (fingerprint.adapted.empty() ? "" : " (a case id@input>output: in dtypes the subject declares)")
      << ", one block per case\n\n";
  for (const CaseObservation& seen : fingerprint.cases) {
    const DecidingCase& c = *seen.deciding;
    std::string reading;
    const bool not_applicable = std::find(fingerprint.not_applicable.begin(), fingerprint.not_applicable.end(), c.axis) !=
                                fingerprint.not_applicable.end();
    if (seen.outcome == Outcome::kUnsupported && not_applicable) {
      reading = std::string("not applicable (the subject declares no ") +
                (c.axis == Axis::kNibbleOrder ? "FP4" : "FP8") + " output dtype)";
    } else if (seen.outcome == Outcome::kUnsupported) {
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
    QuantizeConfig called;
    if (!seen.scale.empty() && !seen.data.empty() && deciding_config(fingerprint.call, c, called)) {
      const std::size_t focus = std::min(focus_byte(called, c), seen.data.size() - 1);
      out << ": scale " << hex_byte(seen.scale[0]) << ", data[" << focus << "] " << hex_byte(seen.data[focus]);
    }
    out << "\n";
  }
  out << "\n";
  const std::vector<std::string> matching = fingerprint.matching_labels();
  if (matching.size() == 1 && fingerprint.confirmation_failed > 0) {
    out << "no known profile: matches " << matching[0] << " on the deciding cases but differs on "
        << fingerprint.confirmation_failed << " confirmation case(s) (of " << fingerprint.confirmation_cases
        << " run: its profile's corpus cases and generated cases); the first:\n";
    for (const ConfirmationFailure& f : fingerprint.confirmation_failures) {
      out << "  " << safe_text(f.id) << " (" << f.configuration << "): " << safe_text(f.difference) << "\n";
    }
  } else if (matching.size() == 1) {
    out << "matches every case: " << matching[0] << "\n";
    if (fingerprint.confirmation_ran && fingerprint.confirmation_cases == 0) {
      out << "not confirmed: no confirmation case ran (none of its profile's corpus cases and generated cases is in "
             "a block shape and dtypes the subject declares)\n";
    } else if (fingerprint.confirmation_ran) {
      out << "confirmed on " << fingerprint.confirmation_cases
          << " confirmation case(s) (its profile's corpus cases and generated cases): no difference\n";
    } else {
      out << "not confirmed: a bundle holds only the deciding cases (export and grade certify the rest)\n";
    }
  } else if (matching.size() > 1) {
    out << "ambiguous: " << matching.size() << " known configurations match every case:\n";
    for (const std::string& label : matching) out << "  " << label << "\n";
  } else if (fingerprint.cases_run() == 0) {
    out << "no deciding case ran: the subject declined every one (or a bundle holds no output of any), so nothing "
           "decides its contract; see the reasons above\n";
  } else {
    out << "no known profile matches every case; nearest:\n";
    constexpr std::size_t kNearest = 3;
    for (std::size_t i = 0; i < fingerprint.scores.size() && i < kNearest; ++i) {
      const ConfigurationScore& s = fingerprint.scores[i];
      std::string cases;
      for (const std::string& id : s.disagreeing) cases += (cases.empty() ? "" : ", ") + id;
      out << "  " << s.label << " — disagrees on " << s.disagreeing.size() << ": " << cases << "\n";
    }
  }
  if (!fingerprint.not_applicable.empty()) {
    out << "not applicable (no output dtype the subject declares shows them; n/a in the labels):";
    for (Axis axis : fingerprint.not_applicable) out << " " << name(axis) << (axis == fingerprint.not_applicable.back() ? "" : ",");
    out << "\n";
  }
  return out.str();
}

}  // namespace mxconform::certify
