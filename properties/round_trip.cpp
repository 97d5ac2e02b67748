// Round trip: dequantize(quantize(x)) lands within half a grid step of x, at the block's scale.
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <vector>

#include "element_grid.h"
#include "input_value.h"
#include "mxconform/formats.h"
#include "properties.h"

namespace mxconform::properties {
namespace {

bool saturates(GridPosition position) {
  return position == GridPosition::kAboveMaxToMax || position == GridPosition::kRoundsUpToSaturate;
}

std::string describe_element(const QuantizeCase& c, std::size_t i, int e8m0, double dequantized, double low,
                             double high) {
  char text[256];
  std::snprintf(text, sizeof text,
                "element [%zu][%zu] (bits 0x%04X, %.9g) in a block of E8M0 0x%02X dequantizes to %.9g; "
                "allowed [%.9g, %.9g]",
                i / c.config.free, i % c.config.free, c.input[i], value_of(c.config.input, c.input[i]), e8m0,
                dequantized, low, high);
  return text;
}

}  // namespace

PropertyOutcome check_round_trip(const Subject& subject, const CaseSpace& space, const RunSettings& settings,
                                 const std::string& id) {
  Property<QuantizeCase> property(
      "round trip",
      "dequantize(quantize(x)) is within half a grid step of each finite x that neither saturates nor flushes, "
      "and exactly +-max * scale where x saturates",
      quantize_cases(space));
  property.gate_cases = kMetamorphicGateCases;
  property.check = [&subject](const QuantizeCase& c) {
    const QuantizeConfig& config = c.config;
    const Geometry g = geometry(config);
    const ElementGrid& grid = element_grid(info(config.output).element);
    const Outputs out = quantize(subject, c);
    std::vector<float> dequantized(config.partitions * config.free);
    subject.dequantize(config, out.data.data(), out.scale.data(), dequantized.data());
    for (std::size_t row = 0; row < g.block_rows; ++row) {
      for (std::size_t col = 0; col < g.block_cols; ++col) {
        const int e8m0 = block_scale(config, out.scale, row, col);
        if (e8m0 == kZeroMultiplierE8m0) continue;
        for (std::size_t k = 0; k < kBlockSize; ++k) {
          const std::size_t i = element_index(config, row, col, k);
          const double x = value_of(config.input, c.input[i]);
          if (!std::isfinite(x)) continue;
          const double y = std::ldexp(std::fabs(x), Float32::kBias - e8m0);
          const GridPosition position = grid_position(grid, y);
          if (position == GridPosition::kFlushed) continue;
          const Bracket b = saturates(position) ? Bracket{grid.max, grid.max} : bracket(grid, y);
          const double half_step = (b.above - b.below) / 2;
          const double low = std::ldexp(saturates(position) ? grid.max : y - half_step, e8m0 - Float32::kBias);
          const double high = std::ldexp(saturates(position) ? grid.max : y + half_step, e8m0 - Float32::kBias);
          if (std::ldexp(b.above, e8m0 - Float32::kBias) > FLT_MAX) continue;  // beyond fp32: dequantize overflows
          const double d = dequantized[i];
          const bool sign_kept = std::signbit(d) == std::signbit(x);
          if (sign_kept && std::fabs(d) >= low && std::fabs(d) <= high) continue;
          fail_with(Repro{"round trip", std::string(subject.name()),
                          "the subject's own output (the bytes are not the question: their dequantized values are)",
                          describe_element(c, i, e8m0, d, std::copysign(low, x), std::copysign(high, x)), config,
                          c.input, out, out},
                    "element " + std::to_string(i) + " dequantizes outside its half step");
        }
      }
    }
  };
  property.base = [](const QuantizeCase& c) -> const QuantizeCase& { return c; };
  property.shown = applicable_classes(space);
  property.promised = {CoverageClass::kNormalTie, CoverageClass::kSubnormalTie, CoverageClass::kRoundsUpToSaturate,
                       CoverageClass::kExactMax};
  return run_property(property, subject, settings, id);
}

}  // namespace mxconform::properties
