#pragma once
// The cases of the certify campaigns apart from running them: for a level, a seed and a set of
// configurations, every case of the corpus, the exhaustive element campaign and the generated
// property cases, each with its input and the oracle's bytes. `mxconform certify` runs them
// against a subject; `mxconform export` writes them as a bundle and `grade` regenerates them to
// grade what a runner elsewhere wrote. The same level, seed, knobs and corpus give the same
// cases, in the same order, on every machine.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "corpus_case.h"
#include "mxconform/quantize_config.h"

namespace mxconform::certify {

enum class Level { kGate, kNightly, kSoak };
const char* name(Level level);
// Throws Error naming the text when it is not gate, nightly or soak.
Level parse_level(const std::string& text);

// One case of a campaign.
struct CampaignCase {
  std::string campaign;  // "corpus", "exhaustive" or "properties"
  // Unique within its campaign and configuration (knobs_text): the corpus id, "e8m0-N-context",
  // "case-N". Raw bytes for corpus ids: escaped by whoever prints them.
  std::string id;
  QuantizeConfig config;  // validated, shape included
  std::vector<std::uint16_t> input;           // P*F raw input bits, row-major
  std::vector<std::uint8_t> expected_data;    // geometry(config).data_bytes
  std::vector<std::uint8_t> expected_scale;   // configured layout; rows no slot names are 0
  const corpus::CorpusCase* origin = nullptr;  // the corpus case (corpus campaign only)
};
using CaseVisitor = std::function<void(const CampaignCase&)>;

// The configurations certified: `knobs` for each input and output dtype (FP8 with stride 0 and
// parity 1), or with `all_knobs` every EMAX mode, scale layout, FP8 NaN policy, FP4 parity and
// the FP4 strides 0, 1, 2, 4 and 8 crossed, and then every other stride set in `declared_strides`
// (mxc_backend_info's mask; bit 63 as strides 63 and 128) once per input dtype with `knobs`.
// Shapes are left 0. Throws Error for a stride above kMaxCampaignLaneStride.
std::vector<QuantizeConfig> campaign_configurations(const QuantizeConfig& knobs, bool all_knobs,
                                                    std::uint64_t declared_strides = 0);

// The largest FP4 lane stride the campaigns take: a stride s needs tensors of a multiple of 2s
// elements, and every campaign tensor is widened to one.
inline constexpr std::uint32_t kMaxCampaignLaneStride = 4096;
// Error naming the limit when `stride` is above it.
void check_campaign_lane_stride(std::uint32_t stride);

// For FP4 with a lane stride the shape does not allow ((P*F) % (2*stride) != 0): appends zero
// columns to every row of `input` until it does, updating config.free, and returns true. The
// expected bytes must then come from the oracle. Otherwise changes nothing and returns false.
bool widen_for_stride(QuantizeConfig& config, std::vector<std::uint16_t>& input);

// A configuration's dtypes and knobs without its shape, the key certificates tally by:
// "input=bfloat16 output=float8_e4m3fn emax_mode=emax fp8_nan=canonical scale_layout=physical".
std::string knobs_text(const QuantizeConfig& config);

// Generated cases per configuration of the property campaign (and of a profile's campaign)
// at `level`: 24 (gate), 400 (nightly), 4000 (soak).
std::size_t property_cases_per_config(Level level);

// The oracle's bytes for a validated configuration; the scale rows no slot names are 0.
void oracle_bytes(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                  std::vector<std::uint8_t>& data, std::vector<std::uint8_t>& scale);

// Why `campaign` ("corpus", "exhaustive", "properties") has no cases for `knobs`' profile, or ""
// when it has some: the exhaustive element campaign follows the neuron path and is neuron-only.
std::string campaign_not_for_profile(const std::string& campaign, const QuantizeConfig& knobs);

// The campaigns of `campaigns` that have no cases for `knobs`' profile, each as "campaign: why"
// (campaign_not_for_profile). Throws Error naming --campaign and why when every campaign asked
// for is one: such a run or bundle would hold no case at all.
std::vector<std::string> skipped_campaigns(const std::vector<std::string>& campaigns, const QuantizeConfig& knobs);

// The knob flags a user gave (certify, export): the knobs a request fixes. A knob not named takes
// any value in the corpus campaign, whose cases keep their own knob values.
struct NamedKnobs {
  bool emax_mode = false;
  bool fp8_nan = false;
  bool lane_stride = false;
  bool high_parity = false;
  bool scale_layout = false;
  bool any_block_shape = false;  // --all-knobs: a case of any block shape of the profile
};

// What --all-knobs asks: no knob named, and every block shape of the profile.
NamedKnobs every_knob();

// Whether a case of `config` is part of the request for `request` (the certified profile and
// knobs) with the knobs `named`: the same profile, the same block shape (any, with
// any_block_shape), and each named knob's value (the FP8 NaN policy for FP8 outputs only, the
// lane stride and parity for FP4 outputs only).
// The corpus campaign of certify and export runs only such cases.
bool in_request(const QuantizeConfig& request, const NamedKnobs& named, const QuantizeConfig& config);

// The corpus campaign: every case of `loaded`, in order, with its own configuration; expected
// bytes the corpus leaves open (unnamed scale rows) are 0. `origin` points into `loaded`.
void for_each_corpus_case(const std::vector<corpus::CorpusCase>& loaded, const CaseVisitor& visit);

// The exhaustive element campaign for one configuration (its dtypes and knobs; shape ignored).
void for_each_exhaustive_case(const QuantizeConfig& config, Level level, const CaseVisitor& visit);

// The generated property cases for one configuration: first one case per coverage class the
// configuration promises, an E8M0 sweep and a large tensor (sweep_cases.h), then the property
// suite's generators up to the level's count (gate 24, nightly 400, soak 4000), all seeded from
// `seed` and knobs_text(config). A lane stride the shape does not allow widens the tensor
// (widen_for_stride).
void for_each_property_case(const QuantizeConfig& config, Level level, std::uint64_t seed, const CaseVisitor& visit);

// The profile campaign for one configuration of a profile other than neuron (profile_campaign.h),
// which stands for the property campaign there: the boundary blocks, then seeded blocks up to the
// level's count, seeded from `seed` and knobs_text(config); campaign "properties".
void for_each_profile_case(const QuantizeConfig& config, Level level, std::uint64_t seed, const CaseVisitor& visit);

}  // namespace mxconform::certify
