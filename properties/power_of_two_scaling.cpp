// Power-of-two scaling: 2^k x, every element still normal and finite, moves only the E8M0 by k.
#include <algorithm>
#include <limits>
#include <sstream>

#include "index_gen.h"
#include "input_value.h"
#include "mxconform/formats.h"
#include "properties.h"

namespace mxconform::properties {
namespace {

// A case and the power of two for each block: block i takes shifts[i % size].
struct ScaledCase {
  QuantizeCase base;
  std::vector<std::size_t> shifts;  // picks: k = +-(1 + pick / 2), odd picks negative; empty: all +1
};
bool operator==(const ScaledCase& lhs, const ScaledCase& rhs) {
  return lhs.base == rhs.base && lhs.shifts == rhs.shifts;
}

constexpr std::size_t kShiftPicks = 256;  // |k| up to 128: every binade of bfloat16 is reachable
constexpr std::size_t kShownShifts = 32;  // a repro lists the k of the first blocks only

int shift_of(std::size_t pick) {
  const int magnitude = 1 + static_cast<int>(pick / 2);
  return pick % 2 == 1 ? -magnitude : magnitude;
}

// The k a block can take, `wanted` clamped so that every non-zero element stays a normal of the
// input format; 0 when a block holds Inf, NaN or a subnormal, or only zeros.
int usable_shift(const QuantizeCase& c, std::size_t row, std::size_t col, int wanted) {
  const InputDtype input = c.config.input;
  const int largest_finite_field = exponent_field_max(input) - 1;
  int low = std::numeric_limits<int>::min();
  int high = std::numeric_limits<int>::max();
  for (std::size_t k = 0; k < kBlockSize; ++k) {
    const std::uint16_t bits = c.input[element_index(c.config, row, col, k)];
    if (value_of(input, bits) == 0) continue;
    if (is_nan(input, bits) || is_inf(input, bits) || is_zero_or_subnormal(input, bits)) return 0;
    const int field = static_cast<int>(exponent_field(input, bits));
    low = std::max(low, 1 - field);
    high = std::min(high, largest_finite_field - field);
  }
  return low > high || low == std::numeric_limits<int>::min() ? 0 : std::clamp(wanted, low, high);
}

int block_max_field(const QuantizeCase& c, std::size_t row, std::size_t col) {
  int field = 0;
  for (std::size_t k = 0; k < kBlockSize; ++k) {
    field = std::max(field, fp32_exponent_field(c.config.input, c.input[element_index(c.config, row, col, k)]));
  }
  return field;
}

}  // namespace

PropertyOutcome check_power_of_two_scaling(const Subject& subject, const CaseSpace& space,
                                           const RunSettings& settings, const std::string& id) {
  Property<ScaledCase> property(
      "power-of-two scaling", "2^k x adds k to each unclamped block's E8M0 and leaves its codes unchanged",
      rc::gen::map(
          rc::gen::tuple(quantize_cases(space), rc::gen::container<std::vector<std::size_t>>(index_below(kShiftPicks))),
          [](const auto& parts) {
            return ScaledCase{std::get<0>(parts), std::get<1>(parts)};
          }));
  property.gate_cases = kMetamorphicGateCases;
  property.check = [&subject](const ScaledCase& c) {
    const QuantizeConfig& config = c.base.config;
    const Geometry g = geometry(config);
    const int bias = emax_bias(config);
    const int mantissa = mantissa_bits(config.input);
    QuantizeCase scaled = c.base;
    std::vector<int> shifts(g.block_rows * g.block_cols);
    std::ostringstream detail;
    detail << "k per block, row-major:";
    for (std::size_t b = 0; b < shifts.size(); ++b) {
      const std::size_t row = b / g.block_cols, col = b % g.block_cols;
      shifts[b] = usable_shift(c.base, row, col, shift_of(c.shifts.empty() ? 0 : c.shifts[b % c.shifts.size()]));
      if (b < kShownShifts) detail << " " << shifts[b] << (b + 1 == kShownShifts ? " ..." : "");
      for (std::size_t k = 0; k < kBlockSize && shifts[b] != 0; ++k) {
        std::uint16_t& bits = scaled.input[element_index(config, row, col, k)];
        if (value_of(config.input, bits) != 0) bits = static_cast<std::uint16_t>(bits + shifts[b] * (1 << mantissa));
      }
    }
    const Outputs plain = quantize(subject, c.base);
    const Outputs actual = quantize(subject, scaled);
    const auto plain_codes = element_codes(config, plain.data);
    Outputs expected = actual;  // what the property does not predict is taken as it is
    for (std::size_t b = 0; b < shifts.size(); ++b) {
      const std::size_t row = b / g.block_cols, col = b % g.block_cols;
      const int shifted_before = block_max_field(c.base, row, col) - bias;
      if (shifts[b] == 0 || shifted_before < 1 || shifted_before + shifts[b] < 1) continue;  // clamped
      set_block_scale(config, expected.scale, row, col,
                      static_cast<std::uint8_t>(block_scale(config, plain.scale, row, col) + shifts[b]));
      for (std::size_t k = 0; k < kBlockSize; ++k) {
        const std::size_t i = element_index(config, row, col, k);
        set_code(config, expected.data, i, plain_codes[i]);
      }
    }
    require_same("power-of-two scaling", subject,
                 "the subject's output before scaling, each scaled unclamped block's E8M0 plus k", scaled, expected,
                 actual, detail.str());
  };
  property.base = [](const ScaledCase& c) -> const QuantizeCase& { return c.base; };
  property.shown = applicable_classes(space);
  property.promised = {CoverageClass::kNormalTie, CoverageClass::kE8m0OneUnclamped, CoverageClass::kClampLowBlock};
  return run_property(property, subject, settings, id);
}

}  // namespace mxconform::properties
