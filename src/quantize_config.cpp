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
  if (p % kBlockRows != 0) throw Error(shape() + ": P must be a multiple of 8 (blocks are 8 partitions x 4 columns)");
  if (f % kBlockCols != 0) throw Error(shape() + ": F must be a multiple of 4 (blocks are 8 partitions x 4 columns)");
  if (p > std::numeric_limits<std::size_t>::max() / 2 / f) throw Error(shape() + ": P*F is too large");
  info(config.output);  // throws on an id outside the table
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
  g.block_rows = config.partitions / kBlockRows;
  g.block_cols = config.free / kBlockCols;
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
  return out.str();
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
