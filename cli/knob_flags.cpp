#include "knob_flags.h"

#include <cstdint>
#include <utility>

#include "mxconform/error.h"
#include "option_values.h"

namespace mxconform::cli {

void KnobFlags::add_to(CLI::App& app, const std::string& verb) {
  const std::string done = verb.empty() ? "" : " " + verb;
  emax_mode_option_ = app.add_option("--emax-mode", emax_mode_, "EMAX mode" + done + ": emax (default) or emax-1");
  fp8_nan_option_ = app.add_option("--fp8-nan", fp8_nan_, "FP8 NaN policy" + done + ": canonical (default) or zero");
  lane_stride_option_ = app.add_option("--lane-stride", lane_stride_, "FP4 lane stride" + done + " (default 0)");
  high_parity_option_ = app.add_option("--high-parity", high_parity_, "FP4 high parity" + done + ": 0 or 1 (default 1)");
  scale_layout_option_ = app.add_option("--scale-layout", scale_layout_, "Scale layout" + done + ": physical (default) or logical");
  app.add_option("--profile", profile_, "The contract" + done + ": neuron (default) or another profile "
                                        "(docs/contract.md, Profiles); a knob flag the profile fixes otherwise is refused");
  block_shape_option_ = app.add_option("--block-shape", block_shape_, "8x4, 1x32 or 32x1 (default: the profile's)");
}

certify::NamedKnobs KnobFlags::named() const {
  certify::NamedKnobs named;
  named.emax_mode = emax_mode_option_->count() > 0;
  named.fp8_nan = fp8_nan_option_->count() > 0;
  named.lane_stride = lane_stride_option_->count() > 0;
  named.high_parity = high_parity_option_->count() > 0;
  named.scale_layout = scale_layout_option_->count() > 0;
  return named;
}

void KnobFlags::refuse_with_all_knobs() const {
  const std::pair<const CLI::Option*, const char*> flags[] = {{emax_mode_option_, "--emax-mode"},
                                                               {fp8_nan_option_, "--fp8-nan"},
                                                               {lane_stride_option_, "--lane-stride"},
                                                               {high_parity_option_, "--high-parity"},
                                                               {scale_layout_option_, "--scale-layout"},
                                                               {block_shape_option_, "--block-shape"}};
  for (const auto& [option, flag] : flags) {
    if (option->count() > 0) {
      throw Error(std::string(flag) + " with --all-knobs: --all-knobs runs every value the backend declares for every "
                  "knob; give one or the other");
    }
  }
}

QuantizeConfig KnobFlags::knobs() const {
  QuantizeConfig knobs;
  knobs.emax_mode = parse_emax_mode(emax_mode_);
  knobs.fp8_nan = parse_fp8_nan(fp8_nan_);
  if (lane_stride_option_->count() > 0) {
    knobs.fp4_lane_stride = static_cast<std::uint32_t>(parse_unsigned("--lane-stride", lane_stride_, UINT32_MAX));
  }
  if (high_parity_option_->count() > 0) knobs.fp4_high_parity = parse_parity("--high-parity", high_parity_);
  knobs.scale_layout = parse_scale_layout(scale_layout_);
  ProfileId id = ProfileId::kNeuron;
  try {
    id = parse_profile(profile_);
  } catch (const Error& error) {
    throw Error(std::string("--profile: ") + error.what());
  }
  if (id != ProfileId::kNeuron) {
    const QuantizeConfig asked = knobs;
    apply_profile(knobs, id);
    // A knob flag the user gave is part of the request: a value the profile cannot take is a
    // usage error, never silently replaced (the run would certify something not asked for).
    const std::string in_profile = ": profile " + std::string(name(id)) + " fixes it at ";
    if (emax_mode_option_->count() > 0 && knobs.emax_mode != asked.emax_mode) {
      throw Error("--emax-mode " + std::string(name(asked.emax_mode)) + in_profile + std::string(name(knobs.emax_mode)));
    }
    if (fp8_nan_option_->count() > 0 && knobs.fp8_nan != asked.fp8_nan) {
      throw Error("--fp8-nan " + std::string(name(asked.fp8_nan)) + in_profile + std::string(name(knobs.fp8_nan)));
    }
    if (scale_layout_option_->count() > 0 && knobs.scale_layout != asked.scale_layout) {
      throw Error("--scale-layout " + std::string(name(asked.scale_layout)) + in_profile +
                  std::string(name(knobs.scale_layout)));
    }
    if (lane_stride_option_->count() > 0 && knobs.fp4_lane_stride != asked.fp4_lane_stride) {
      throw Error("--lane-stride " + std::to_string(asked.fp4_lane_stride) + in_profile +
                  std::to_string(knobs.fp4_lane_stride));
    }
    if (high_parity_option_->count() > 0 && knobs.fp4_high_parity != asked.fp4_high_parity) {
      throw Error("--high-parity " + std::to_string(asked.fp4_high_parity) + in_profile +
                  std::to_string(knobs.fp4_high_parity));
    }
  }
  if (block_shape_option_->count() > 0) {
    BlockShape shape = BlockShape::k8x4;
    try {
      shape = parse_block_shape(block_shape_);
    } catch (const Error& error) {
      throw Error(std::string("--block-shape: ") + error.what());
    }
    const Profile& contract = profile(id);
    if ((contract.block_shapes >> static_cast<std::uint32_t>(shape) & 1) == 0) {
      std::string admitted;
      for (std::uint32_t s = 0; s < kBlockShapeCount; ++s) {
        if ((contract.block_shapes >> s & 1) != 0) admitted += (admitted.empty() ? "" : ", ") + std::string(name(static_cast<BlockShape>(s)));
      }
      throw Error("--block-shape " + std::string(name(shape)) + ": profile " + std::string(contract.name) + " admits " + admitted);
    }
    knobs.block_shape = shape;
  }
  return knobs;
}

}  // namespace mxconform::cli
