#include "mxconform/quantize_config.h"

#include <limits>
#include <sstream>

#include "mxconform/error.h"
#include "mxconform/scale_layout.h"

namespace mxconform {

void validate(const QuantizeConfig& config) {
  const std::size_t p = config.partitions;
  const std::size_t f = config.free;
  auto shape = [&] { return "shape [" + std::to_string(p) + ", " + std::to_string(f) + "]"; };
  if (p == 0 || f == 0) throw Error(shape() + ": P and F must be positive");
  const Profile& contract = profile(config.profile);  // throws on an id outside the table
  const BlockExtent block = extent(config.block_shape);
  const std::string blocks = "(blocks are " + std::to_string(block.rows) + " partitions x " + std::to_string(block.cols) +
                             " columns)";
  if (p % block.rows != 0) throw Error(shape() + ": P must be a multiple of " + std::to_string(block.rows) + " " + blocks);
  if (f % block.cols != 0) throw Error(shape() + ": F must be a multiple of " + std::to_string(block.cols) + " " + blocks);
  if (p > std::numeric_limits<std::size_t>::max() / 2 / f) throw Error(shape() + ": P*F is too large");
  const int per_container = info(config.output).elements_per_container;  // throws on an id outside the table
  if (f % static_cast<std::size_t>(per_container) != 0) {
    // 8x4 and 1x32 blocks imply it; a 32x1 block does not (an FP4 row of one element is half a byte).
    throw Error(shape() + ": " + std::string(name(config.output)) + " holds " + std::to_string(per_container) +
                " elements of a row per container: F must be a multiple of " + std::to_string(per_container));
  }
  const std::string in_profile = "profile " + std::string(contract.name) + ": ";
  const auto admits = [](std::uint32_t mask, auto value) { return ((mask >> static_cast<std::uint32_t>(value)) & 1) != 0; };
  if (!admits(contract.block_shapes, config.block_shape)) {
    throw Error(in_profile + "block shape " + std::string(name(config.block_shape)) + " is not part of the profile");
  }
  if (is_fp4(config.output) && !contract.fp4) throw Error(in_profile + "FP4 output is not part of the profile (FP8 only)");
  if (!admits(contract.emax_modes, config.emax_mode)) {
    throw Error(in_profile + "EMAX mode " + std::string(name(config.emax_mode)) + " is not part of the profile");
  }
  if (!is_fp4(config.output) && !admits(contract.fp8_nan_policies, config.fp8_nan)) {
    throw Error(in_profile + "FP8 NaN policy " + std::string(name(config.fp8_nan)) + " is not part of the profile");
  }
  if (!admits(contract.scale_layouts, config.scale_layout)) {
    throw Error(in_profile + "scale layout " + std::string(name(config.scale_layout)) + " is not part of the profile");
  }
  if (!contract.lane_knobs && is_fp4(config.output) && (config.fp4_lane_stride != 0 || config.fp4_high_parity != 1)) {
    throw Error(in_profile + "FP4 packs c0 | c1 << 4: lane stride 0 and high parity 1 only");
  }
  if (config.fp4_high_parity != 0 && config.fp4_high_parity != 1) {
    throw Error("high parity " + std::to_string(config.fp4_high_parity) + ": must be 0 or 1");
  }
  if (is_fp4(config.output) && config.fp4_lane_stride != 0) {
    const std::size_t window = 2 * static_cast<std::size_t>(config.fp4_lane_stride);
    if ((p * f) % window != 0) {
      throw Error("lane stride " + std::to_string(config.fp4_lane_stride) + " with " + shape() +
                  ": FP4 needs (P*F) % (2*stride) == 0, and " + std::to_string(p * f) + " % " +
                  std::to_string(window) + " = " + std::to_string((p * f) % window));
    }
  }
}

Geometry geometry(const QuantizeConfig& config) {
  Geometry g{};
  const BlockExtent block = extent(config.block_shape);
  g.block_height = block.rows;
  g.block_width = block.cols;
  g.block_rows = config.partitions / block.rows;
  g.block_cols = config.free / block.cols;
  g.data_row_bytes = is_fp4(config.output) ? config.free / 2 : config.free;
  g.data_bytes = config.partitions * g.data_row_bytes;
  g.containers_per_row = config.free / info(config.output).elements_per_container;
  g.scale_rows = config.scale_layout == ScaleLayout::kPhysical ? physical_scale_rows(g.block_rows)
                                                               : g.block_rows;
  g.scale_bytes = g.scale_rows * g.block_cols;
  return g;
}

int emax_bias(const QuantizeConfig& config) {
  const int emax = element_format(config.output).emax;
  return config.emax_mode == EmaxMode::kEmax ? emax : emax - 1;
}

std::string_view name(EmaxMode mode) { return mode == EmaxMode::kEmax ? "emax" : "emax-1"; }
std::string_view name(Fp8NanPolicy policy) {
  return policy == Fp8NanPolicy::kCanonical ? "canonical" : "zero";
}
std::string_view name(ScaleLayout layout) {
  return layout == ScaleLayout::kPhysical ? "physical" : "logical";
}

EmaxMode parse_emax_mode(std::string_view text) {
  if (text == "emax") return EmaxMode::kEmax;
  if (text == "emax-1" || text == "emax_minus_1") return EmaxMode::kEmaxMinus1;
  throw Error("unknown EMAX mode '" + std::string(text) + "'; expected emax or emax-1");
}
Fp8NanPolicy parse_fp8_nan(std::string_view text) {
  if (text == "canonical") return Fp8NanPolicy::kCanonical;
  if (text == "zero") return Fp8NanPolicy::kZero;
  throw Error("unknown FP8 NaN policy '" + std::string(text) + "'; expected canonical or zero");
}
ScaleLayout parse_scale_layout(std::string_view text) {
  if (text == "physical") return ScaleLayout::kPhysical;
  if (text == "logical") return ScaleLayout::kLogical;
  throw Error("unknown scale layout '" + std::string(text) + "'; expected physical or logical");
}

std::string describe(const QuantizeConfig& config) {
  std::ostringstream out;
  out << "input=" << name(config.input) << " output=" << name(config.output) << " (id "
      << static_cast<int>(config.output) << ")"
      << " shape=[" << config.partitions << ", " << config.free << "]"
      << " emax_mode=" << name(config.emax_mode) << " emax_bias=" << emax_bias(config)
      << " fp8_nan=" << name(config.fp8_nan) << " lane_stride=" << config.fp4_lane_stride
      << " high_parity=" << config.fp4_high_parity << " scale_layout=" << name(config.scale_layout);
  if (config.profile != ProfileId::kNeuron) {
    out << " profile=" << name(config.profile) << " block=" << name(config.block_shape);
  }
  return out.str();
}

void apply_profile(QuantizeConfig& config, ProfileId id) {
  const Profile& contract = profile(id);
  config.profile = id;
  config.block_shape = contract.default_shape;
  const auto admits = [](std::uint32_t mask, auto value) { return ((mask >> static_cast<std::uint32_t>(value)) & 1) != 0; };
  if (!admits(contract.scale_layouts, config.scale_layout)) config.scale_layout = ScaleLayout::kLogical;
  if (!admits(contract.emax_modes, config.emax_mode)) config.emax_mode = EmaxMode::kEmaxMinus1;
  if (!admits(contract.emax_modes, config.emax_mode)) config.emax_mode = EmaxMode::kEmax;
  if (!admits(contract.fp8_nan_policies, config.fp8_nan)) config.fp8_nan = Fp8NanPolicy::kCanonical;
  if (!contract.lane_knobs) {
    config.fp4_lane_stride = 0;
    config.fp4_high_parity = 1;
  }
}

std::size_t scale_row(const QuantizeConfig& config, std::size_t group) {
  return config.scale_layout == ScaleLayout::kPhysical ? scale_slot(group) : group;
}

std::vector<bool> named_scale_rows(const QuantizeConfig& config) {
  const Geometry g = geometry(config);
  std::vector<bool> named(g.scale_rows, false);
  for (std::size_t group = 0; group < g.block_rows; ++group) named[scale_row(config, group)] = true;
  return named;
}

}  // namespace mxconform
