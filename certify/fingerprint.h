#pragma once
// `mxconform fingerprint`: which known contract a subject implements. A small fixed set of
// single-block deciding cases (where the profiles and the Neuron knobs part), run once on the
// subject in an isolated worker; each known configuration (a profile with its knob values) is
// computed by the oracle on the same blocks, and the ones that match every case are named; one
// that does is then confirmed on its profile's corpus cases and generated cases (take_fingerprint).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bundle.h"
#include "campaign_cases.h"
#include "worker_backend.h"
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
  std::vector<std::uint16_t> input;  // one block: 32 elements of input_dtype, row-major
  std::size_t focus;          // the data byte that shows the decision
  InputDtype input_dtype = InputDtype::kBfloat16;
  std::vector<std::string> values;   // the 32 elements as exact values (corpus element syntax)
  std::vector<std::string> e5m2_values;  // the block for an e5m2 output where it differs (a tie or
                                         // an amax that e5m2's range reads as e4m3's does that)
};
const std::vector<DecidingCase>& deciding_cases();

// The call of one deciding case: `knobs` (a profile and its knob values) with the case's output
// and input dtypes and the profile campaign's shape (campaign_shape: one block of knobs' block
// shape, or four side by side for an x4 dtype under 32x1, whose F must be a multiple of 4; FP8:
// stride 0, parity 1). False when the profile or knobs do not admit that dtype: the case is not run.
bool deciding_config(const QuantizeConfig& knobs, const DecidingCase& c, QuantizeConfig& config);
// The deciding block (32 elements, row-major within the block) laid out in `config`'s shape, once
// per copy deciding_config makes, copy k rotated by k elements (block_copies): two FP4 columns
// packed in one byte never hold the same code throughout, so the nibble order shows in 32x1 too.
std::vector<std::uint16_t> deciding_input(const QuantizeConfig& config, const std::vector<std::uint16_t>& block);

// The name of the bundle campaign that holds the deciding cases (`fingerprint --export-bundle`).
inline constexpr const char* kFingerprintCampaign = "fingerprint";
// The deciding cases `call` admits, in order, as campaign cases: campaign kFingerprintCampaign,
// id the deciding case's, the oracle's bytes under `call`.
void for_each_deciding_case(const QuantizeConfig& call, const CaseVisitor& visit);

// The deciding case `c` in the dtypes a subject declares (`declared`: its output and input dtype
// masks): `c` itself when both are declared; else the same block in a declared input dtype that
// holds every value exactly, and/or in another declared output dtype of the same kind (FP8 or
// FP4, e5m2_values for e5m2), kept only when it still tells apart every two known
// configurations `c` tells apart. False when no declared dtypes keep the case.
bool adapt_deciding_case(const DecidingCase& c, const Capabilities& declared, DecidingCase& adapted);

// The axes no call the subject can take shows (Axis::kNibbleOrder without an FP4 output,
// Axis::kFp8NanPolicy without an FP8 output): "not applicable", not ambiguity.
std::vector<Axis> not_applicable_axes(const Capabilities& declared);

struct CaseObservation {
  const DecidingCase* deciding = nullptr;
  Outcome outcome = Outcome::kPass;   // kUnsupported: the subject declined it; other failures: it misbehaved
  std::string detail;
  std::vector<std::uint8_t> data, scale;  // what the subject wrote
  std::vector<std::string> readings;      // axis values of the known configurations that give these bytes
};

struct ConfigurationScore {
  const KnownConfiguration* known = nullptr;
  std::string label;  // known->label with the knobs of not-applicable axes as "n/a"
  std::vector<std::string> disagreeing;  // ids of the cases where its bytes differ from the subject's
};

// A confirmation case on which the subject differs from the matched configuration's oracle.
struct ConfirmationFailure {
  std::string id;             // "corpus:<id>" or "properties:case-N" (raw: escaped when printed)
  std::string configuration;  // describe() of the call
  std::string difference;     // the first scale and data Difference, or the outcome and detail
};

struct Fingerprint {
  std::string backend;
  QuantizeConfig call;        // the profile and knobs every call was made with
  std::vector<CaseObservation> cases;
  std::vector<ConfigurationScore> scores;  // every known configuration, fewest disagreements first
  std::vector<Axis> not_applicable;        // axes nothing the subject declares can show
  std::vector<std::shared_ptr<const DecidingCase>> adapted;  // deciding cases run in other dtypes
  // The confirmation campaign (take_fingerprint): run when the deciding cases leave one label.
  // A match it ran no case of is not confirmed (decided() is false).
  bool confirmation_ran = false;
  std::size_t confirmation_cases = 0;     // run on the subject
  std::size_t confirmation_failed = 0;    // of those, differing from the matched configuration
  std::vector<ConfirmationFailure> confirmation_failures;  // the first few
  // The deciding cases the subject ran (neither declined nor left without output).
  std::size_t cases_run() const;
  // The labels of the known configurations that match every case the subject ran; none when it
  // ran no case (a match on nothing is no match).
  std::vector<std::string> matching_labels() const;
  // Exactly one label matches every deciding case, no confirmation case differs from it, and
  // when the confirmation ran, it ran at least one case (a bundle has none and is not confirmed).
  bool decided() const;
};

// Scores every known configuration against the observations of `fingerprint.cases` (the cases
// declined or without output count for none) and fills `readings`; fewest disagreements first.
void score(Fingerprint& fingerprint);

// At most this many confirmation cases run (the profile's corpus cases, then generated ones).
inline constexpr std::size_t kMaxConfirmationCases = 400;

// Runs the deciding cases on `backend` (a built-in name or a plug-in path). The calls use the
// subject's declared profile (neuron when it declares it) and, for each knob, the default when
// declared, else the first value it declares; each case in the dtypes the subject declares
// (adapt_deciding_case). When they leave one label, a confirmation campaign against that
// configuration follows through the same worker, in the calls' block shape and every other one
// the subject declares and both profiles admit: the corpus cases of its profile in that shape and
// the first generated cases of each declared configuration (certify's property or profile
// campaign at gate, seed 1), at most kMaxConfirmationCases over all shapes, each called with the
// calls' knobs and graded against the oracle under the matched knobs. Throws LoadError when the
// backend cannot be loaded.
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
