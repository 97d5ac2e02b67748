#include "campaign_cases.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>

#include "case_space.h"
#include "class_cases.h"
#include "exhaustive_campaign.h"
#include "mxconform/error.h"
#include "oracle.h"
#include "profile_campaign.h"
#include "sweep_cases.h"

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

namespace {

// Whether the configuration's profile admits its dtypes and knobs (validated on the profile
// campaign's shape: one block, or four side by side for an x4 dtype under 32x1).
bool profile_admits(QuantizeConfig config) {
  campaign_shape(config);
  try {
    validate(config);
    return true;
  } catch (const Error&) {
    return false;
  }
}

// The smallest F' >= F, a multiple of 4, with (P * F') % (2 * stride) == 0: the shape an FP4
// lane stride needs (backend.h: mxconform never passes another).
std::size_t free_for_stride(std::size_t partitions, std::size_t free, std::uint32_t stride) {
  const std::size_t window = 2 * static_cast<std::size_t>(stride);
  const std::size_t step = std::lcm<std::size_t>(4, window / std::gcd(window, partitions));
  return (free + step - 1) / step * step;
}

// The strides --all-knobs crosses with every other knob; a backend's other declared strides get
// one configuration each (declared_strides).
constexpr std::uint32_t kCrossedStrides[] = {0, 1, 2, 4, 8};
// Bit 63 of fp4_lane_strides stands for every stride of 63 and above: these two stand for it.
constexpr std::uint32_t kStridesForBit63[] = {63, 128};

}  // namespace

void check_campaign_lane_stride(std::uint32_t stride) {
  if (stride > kMaxCampaignLaneStride) {
    throw Error("lane stride " + std::to_string(stride) + ": the campaigns cover strides 0 to " +
                std::to_string(kMaxCampaignLaneStride) + " (a stride s needs tensors of a multiple of 2s elements)");
  }
}

bool widen_for_stride(QuantizeConfig& config, std::vector<std::uint16_t>& input) {
  if (!is_fp4(config.output) || config.fp4_lane_stride == 0) return false;
  const std::size_t wider = free_for_stride(config.partitions, config.free, config.fp4_lane_stride);
  if (wider == config.free) return false;
  std::vector<std::uint16_t> widened(config.partitions * wider, 0);  // +0 in both input dtypes
  for (std::size_t row = 0; row < config.partitions; ++row) {
    std::copy_n(input.begin() + static_cast<std::ptrdiff_t>(row * config.free), config.free,
                widened.begin() + static_cast<std::ptrdiff_t>(row * wider));
  }
  config.free = wider;
  input = std::move(widened);
  return true;
}

std::vector<QuantizeConfig> campaign_configurations(const QuantizeConfig& knobs, bool all_knobs,
                                                    std::uint64_t declared_strides) {
  check_campaign_lane_stride(knobs.fp4_lane_stride);
  std::vector<QuantizeConfig> out;
  if (knobs.profile != ProfileId::kNeuron) {
    // Another profile: `knobs`' values, or with all_knobs every block shape, EMAX mode, scale
    // layout and FP8 NaN policy the profile admits; every dtype it admits.
    const Profile& contract = profile(knobs.profile);
    const auto values = [&](std::uint32_t mask, std::uint32_t count, std::uint32_t own) {
      std::vector<std::uint32_t> admitted;
      for (std::uint32_t v = 0; v < count; ++v) {
        if (all_knobs ? (mask >> v & 1) != 0 : v == own) admitted.push_back(v);
      }
      return admitted;
    };
    for (std::uint32_t shape : values(contract.block_shapes, kBlockShapeCount, static_cast<std::uint32_t>(knobs.block_shape))) {
      for (std::uint32_t mode : values(contract.emax_modes, 2, static_cast<std::uint32_t>(knobs.emax_mode))) {
        for (std::uint32_t layout : values(contract.scale_layouts, 2, static_cast<std::uint32_t>(knobs.scale_layout))) {
          for (InputDtype input : {InputDtype::kBfloat16, InputDtype::kFloat16}) {
            for (const OutputDtypeInfo& dtype : output_dtypes()) {
              QuantizeConfig c = knobs;
              c.block_shape = static_cast<BlockShape>(shape);
              c.emax_mode = static_cast<EmaxMode>(mode);
              c.scale_layout = static_cast<ScaleLayout>(layout);
              c.input = input;
              c.output = dtype.id;
              const std::vector<std::uint32_t> policies =
                  is_fp4(dtype.id) ? std::vector<std::uint32_t>{static_cast<std::uint32_t>(knobs.fp8_nan)}
                                   : values(contract.fp8_nan_policies, 2, static_cast<std::uint32_t>(knobs.fp8_nan));
              for (std::uint32_t policy : policies) {
                c.fp8_nan = static_cast<Fp8NanPolicy>(policy);
                if (profile_admits(c)) out.push_back(c);
              }
            }
          }
        }
      }
    }
    return out;
  }
  for (InputDtype input : {InputDtype::kBfloat16, InputDtype::kFloat16}) {
    for (const OutputDtypeInfo& dtype : output_dtypes()) {
      QuantizeConfig base = knobs;
      base.input = input;
      base.output = dtype.id;
      if (!all_knobs) {
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
              for (std::uint32_t stride : kCrossedStrides) {
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
  // Every other stride the backend declares, once per input dtype and FP4 dtype, with `knobs`'
  // other values: a stride's own bug cannot hide behind the crossed ones.
  if (all_knobs) {
    std::vector<std::uint32_t> strides;
    for (std::uint32_t bit = 0; bit < 63; ++bit) {
      if ((declared_strides >> bit & 1) != 0) strides.push_back(bit);
    }
    if ((declared_strides >> 63 & 1) != 0) strides.insert(strides.end(), std::begin(kStridesForBit63), std::end(kStridesForBit63));
    for (std::uint32_t stride : strides) {
      if (std::find(std::begin(kCrossedStrides), std::end(kCrossedStrides), stride) != std::end(kCrossedStrides)) continue;
      for (InputDtype input : {InputDtype::kBfloat16, InputDtype::kFloat16}) {
        for (const OutputDtypeInfo& dtype : output_dtypes()) {
          if (!is_fp4(dtype.id)) continue;
          QuantizeConfig c = knobs;
          c.input = input;
          c.output = dtype.id;
          c.fp4_lane_stride = stride;
          out.push_back(c);
        }
      }
    }
  }
  return out;
}

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

void oracle_bytes(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                  std::vector<std::uint8_t>& data, std::vector<std::uint8_t>& scale) {
  const Geometry g = geometry(config);
  data.assign(g.data_bytes, 0);
  scale.assign(g.scale_bytes, 0);
  oracle::quantize(config, input.data(), data.data(), scale.data());
}

std::size_t property_cases_per_config(Level level) {
  switch (level) {
    case Level::kGate: return 24;
    case Level::kNightly: return 400;
    case Level::kSoak: return 4000;
  }
  return 0;
}

namespace {

std::size_t exhaustive_tensors_per_config(Level level) {
  return level == Level::kGate ? 10 : std::numeric_limits<std::size_t>::max();
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

// The element code and the scale byte the oracle gives a block of +0 under `config`'s knobs.
struct ZeroBlock {
  std::uint8_t code;
  std::uint8_t scale;
};
ZeroBlock zero_block_bytes(QuantizeConfig config) {
  const BlockExtent block = extent(config.block_shape);
  config.partitions = block.rows;
  config.free = std::max<std::size_t>(block.cols, 4);
  config.fp4_lane_stride = 0;
  config.scale_layout = ScaleLayout::kLogical;
  const std::vector<std::uint16_t> zeros(config.partitions * config.free, 0);
  std::vector<std::uint8_t> data, scale;
  oracle_bytes(config, zeros, data, scale);
  constexpr std::uint8_t kNibble = 0b1111;  // FP4: both nibbles of the first byte hold +0's code
  const std::uint8_t code = is_fp4(config.output) ? static_cast<std::uint8_t>(data.at(0) & kNibble) : data.at(0);
  return {code, scale.at(0)};
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

}  // namespace

std::string campaign_not_for_profile(const std::string& campaign, const QuantizeConfig& knobs) {
  if (campaign != "exhaustive" || knobs.profile == ProfileId::kNeuron) return "";
  return "the exhaustive element campaign is neuron-only (it follows the neuron path); profile " +
         std::string(name(knobs.profile)) + " has no case in it";
}

std::vector<std::string> skipped_campaigns(const std::vector<std::string>& campaigns, const QuantizeConfig& knobs) {
  std::vector<std::string> skipped;
  std::string flags;
  for (const std::string& campaign : campaigns) {
    const std::string why = campaign_not_for_profile(campaign, knobs);
    if (why.empty()) continue;
    skipped.push_back(campaign + ": " + why);
    flags += (flags.empty() ? "--campaign " : " --campaign ") + campaign;
  }
  if (!campaigns.empty() && skipped.size() == campaigns.size()) {
    throw Error(flags + ": " + skipped.front().substr(skipped.front().find(": ") + 2) +
                "; ask for corpus or properties (the profile campaign)");
  }
  return skipped;
}

NamedKnobs every_knob() {
  NamedKnobs every;
  every.any_block_shape = true;
  return every;
}

bool in_request(const QuantizeConfig& request, const NamedKnobs& named, const QuantizeConfig& config) {
  if (config.profile != request.profile) return false;
  if (!named.any_block_shape && config.block_shape != request.block_shape) return false;
  if (named.emax_mode && config.emax_mode != request.emax_mode) return false;
  if (named.scale_layout && config.scale_layout != request.scale_layout) return false;
  if (!is_fp4(config.output)) return !named.fp8_nan || config.fp8_nan == request.fp8_nan;
  if (named.lane_stride && config.fp4_lane_stride != request.fp4_lane_stride) return false;
  return !named.high_parity || config.fp4_high_parity == request.fp4_high_parity;
}

void for_each_corpus_case(const std::vector<corpus::CorpusCase>& loaded, const CaseVisitor& visit) {
  for (const corpus::CorpusCase& c : loaded) {
    CampaignCase out;
    out.campaign = "corpus";
    out.id = c.id;
    out.config = c.config;
    out.input = c.input;
    out.expected_data.resize(c.data.size());
    out.expected_scale.resize(c.scale.size());
    for (std::size_t j = 0; j < c.data.size(); ++j) out.expected_data[j] = c.data[j].value_or(0);
    for (std::size_t j = 0; j < c.scale.size(); ++j) out.expected_scale[j] = c.scale[j].value_or(0);
    out.origin = &c;
    visit(out);
  }
}

void for_each_exhaustive_case(const QuantizeConfig& config, Level level, const CaseVisitor& visit) {
  ExhaustiveCampaign campaign(config.input, config.output, config.emax_mode, config.fp8_nan);
  std::size_t tensors = 0;
  for (int e8m0 : sample_e8m0(campaign.reachable_e8m0(), level)) {
    if (tensors++ >= exhaustive_tensors_per_config(level)) break;
    for (ExhaustiveTensor& t : campaign.tensors(e8m0)) {
      CampaignCase out;
      out.campaign = "exhaustive";
      out.id = "e8m0-" + std::to_string(e8m0) + "-" + t.context;
      out.config = t.config;
      out.config.fp4_lane_stride = config.fp4_lane_stride;
      out.config.fp4_high_parity = config.fp4_high_parity;
      out.config.scale_layout = config.scale_layout;  // one partition group: both layouts are one row
      const std::size_t columns = out.config.free;
      out.input = std::move(t.input);
      if (widen_for_stride(out.config, out.input)) {
        // Zero columns appended for the stride: blocks of +0, whose code and scale byte the oracle
        // gives for one such block (the exhaustive tensor's own bytes stay as computed).
        const ZeroBlock zero = zero_block_bytes(out.config);
        std::vector<std::uint8_t> codes(out.config.partitions * out.config.free, zero.code);
        for (std::size_t row = 0; row < out.config.partitions; ++row) {
          std::copy_n(t.codes.begin() + static_cast<std::ptrdiff_t>(row * columns), columns,
                      codes.begin() + static_cast<std::ptrdiff_t>(row * out.config.free));
        }
        out.expected_data = pack_codes(out.config, codes);
        out.expected_scale = std::move(t.expected_scale);
        out.expected_scale.resize(geometry(out.config).scale_bytes, zero.scale);
      } else {
        out.expected_data = pack_codes(out.config, t.codes);
        out.expected_scale = std::move(t.expected_scale);
      }
      visit(out);
    }
  }
}

void for_each_property_case(const QuantizeConfig& config, Level level, std::uint64_t seed, const CaseVisitor& visit) {
  const std::uint64_t config_seed = seed * 1000003u + std::hash<std::string>{}(knobs_text(config));
  std::vector<properties::QuantizeCase> cases = properties::class_cases(config, config_seed);
  // Every E8M0 a finite block can get, and a tensor larger than the generators draw.
  cases.push_back(properties::e8m0_sweep_case(config, config_seed));
  cases.push_back(properties::large_tensor_case(config, config_seed));
  properties::CaseSpace space;
  space.outputs = {config.output};
  space.max_block_rows = 16;
  space.max_block_cols = 64;
  const std::size_t per_config = property_cases_per_config(level);
  for (std::size_t i = cases.size(); i < per_config; ++i) {
    const int size = static_cast<int>(i * 7 % (properties::kMaxGenerationSize + 1));
    cases.push_back(properties::draw_case(space, config_seed + i, size));
  }
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CampaignCase out;
    out.campaign = "properties";
    out.id = "case-" + std::to_string(i);
    out.config = config;
    out.config.partitions = cases[i].config.partitions;
    out.config.free = cases[i].config.free;
    out.input = std::move(cases[i].input);
    widen_for_stride(out.config, out.input);
    oracle_bytes(out.config, out.input, out.expected_data, out.expected_scale);
    visit(out);
  }
}

void for_each_profile_case(const QuantizeConfig& config, Level level, std::uint64_t seed, const CaseVisitor& visit) {
  const std::uint64_t config_seed = seed * 1000003u + std::hash<std::string>{}(knobs_text(config));
  for (ProfileCase& c : profile_cases(config, config_seed, property_cases_per_config(level))) {
    CampaignCase out;
    out.campaign = "properties";
    out.id = std::move(c.id);
    out.config = c.config;
    out.input = std::move(c.input);
    oracle_bytes(out.config, out.input, out.expected_data, out.expected_scale);
    visit(out);
  }
}

}  // namespace mxconform::certify
