#pragma once
// `mxconform fingerprint`: which known contract a subject implements. A small fixed set of
// single-block deciding cases (where the profiles and the Neuron knobs part), run once on the
// subject in an isolated worker; each known configuration (a profile with its knob values) is
// computed by the oracle on the same blocks, and the ones that match every case are named.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bundle.h"
#include "campaign_cases.h"
#include "isolated_backend.h"
#include "mxconform/quantize_config.h"

namespace mxconform::certify {

// A known configuration: a profile and its knob values (dtypes and shape are the case's).
struct KnownConfiguration {
  QuantizeConfig knobs;
  std::string label;  // "neuron emax_mode=emax fp8_nan=canonical lane_stride=0 high_parity=1"
};
// Every neuron combination of EMAX mode x FP8 NaN policy x FP4 lane stride (0, 2, 4, 8, 16) x
// parity, nki-golden under both EMAX modes, and each other profile with its own knobs.
std::vector<KnownConfiguration> known_configurations();

// The axis a deciding case settles, and how a known configuration reads on that axis.
enum class Axis { kZeroBlock, kScaleRule, kEmaxMode, kSpecials, kFp8NanPolicy, kElementTies, kNibbleOrder };
std::string_view name(Axis axis);
std::string axis_value(Axis axis, const QuantizeConfig& knobs);

struct DecidingCase {
  std::string id;             // "fp8.tie.1.0625"
  Axis axis;
  OutputDtype output;
  std::vector<std::uint16_t> input;  // one block: 32 bfloat16 elements, row-major
  std::size_t focus;          // the data byte that shows the decision
};
const std::vector<DecidingCase>& deciding_cases();

// The call of one deciding case: `knobs` (a profile and its knob values) with the case's output
// dtype, bfloat16 input and the shape of one block of knobs' block shape (FP8: stride 0, parity
// 1). False when the profile or knobs do not admit that dtype: the case is not run.
bool deciding_config(const QuantizeConfig& knobs, const DecidingCase& c, QuantizeConfig& config);

// The name of the bundle campaign that holds the deciding cases (`fingerprint --export-bundle`).
inline constexpr const char* kFingerprintCampaign = "fingerprint";
// The deciding cases `call` admits, in order, as campaign cases: campaign kFingerprintCampaign,
// id the deciding case's, the oracle's bytes under `call`.
void for_each_deciding_case(const QuantizeConfig& call, const CaseVisitor& visit);

struct CaseObservation {
  const DecidingCase* deciding = nullptr;
  Outcome outcome = Outcome::kPass;   // kUnsupported: the subject declined it; other failures: it misbehaved
  std::string detail;
  std::vector<std::uint8_t> data, scale;  // what the subject wrote
  std::vector<std::string> readings;      // axis values of the known configurations that give these bytes
};

struct ConfigurationScore {
  const KnownConfiguration* known = nullptr;
  std::vector<std::string> disagreeing;  // ids of the cases where its bytes differ from the subject's
};

struct Fingerprint {
  std::string backend;
  QuantizeConfig call;        // the profile and knobs every call was made with
  std::vector<CaseObservation> cases;
  std::vector<ConfigurationScore> scores;  // every known configuration, fewest disagreements first
  // Exactly one known configuration matches every case the subject ran.
  bool decided() const;
};

// Scores every known configuration against the observations of `fingerprint.cases` (the cases
// declined or without output count for none) and fills `readings`; fewest disagreements first.
void score(Fingerprint& fingerprint);

// Runs the deciding cases on `backend` (a built-in name or a plug-in path). The calls use the
// subject's declared profile (neuron when it declares it) and, for each knob, the default when
// declared, else the first value it declares. Throws LoadError when the backend cannot be loaded.
Fingerprint take_fingerprint(const std::string& backend, const WorkerLimits& limits);

// The same from a bundle written by `fingerprint --export-bundle` (campaign kFingerprintCampaign)
// whose outputs a runner wrote: the bundle is checked as grade_bundle checks it (Error naming the
// file and field), each case's outputs are read as grade reads them, and a case without outputs
// counts as not run. Throws Error when the bundle holds another campaign.
Fingerprint fingerprint_of_bundle(const GradeOptions& options);

// The report: per axis, what the subject did with the case that decides it, then the matching
// configuration(s), or the nearest with the cases that still disagree. Text from the subject is
// escaped.
std::string to_text(const Fingerprint& fingerprint);

}  // namespace mxconform::certify
