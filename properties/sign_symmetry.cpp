// Sign symmetry: -x quantizes to x's codes with the sign bit flipped, under the same scales.
#include "input_value.h"
#include "properties.h"

namespace mxconform::properties {

PropertyOutcome check_sign_symmetry(const Subject& subject, const CaseSpace& space, const RunSettings& settings,
                                    const std::string& id) {
  Property<QuantizeCase> property("sign symmetry",
                                  "negating every input flips only the sign bits of the codes; the scales stay",
                                  quantize_cases(space));
  property.gate_cases = kMetamorphicGateCases;
  property.check = [&subject](const QuantizeCase& c) {
    const QuantizeConfig& config = c.config;
    const Outputs plain = quantize(subject, c);
    QuantizeCase negated = c;
    for (std::uint16_t& bits : negated.input) bits ^= sign_mask(config.input);
    const Outputs actual = quantize(subject, negated);
    Outputs expected = plain;
    const auto codes = element_codes(config, plain.data);
    const std::uint8_t sign = code_sign_bit(config);
    const Geometry g = geometry(config);
    for (std::size_t row = 0; row < g.block_rows; ++row) {
      for (std::size_t col = 0; col < g.block_cols; ++col) {
        const bool zero_multiplier = block_scale(config, plain.scale, row, col) == kZeroMultiplierE8m0;
        for (std::size_t k = 0; k < kBlockSize; ++k) {
          const std::size_t i = element_index(config, row, col, k);
          if (zero_multiplier && is_inf(config.input, c.input[i])) continue;
          set_code(config, expected.data, i, static_cast<std::uint8_t>(codes[i] ^ sign));
        }
      }
    }
    require_same("sign symmetry", subject,
                 "the subject's output for the input before negation, every code's sign bit flipped "
                 "(Inf at E8M0 254 excepted: Inf * +0 is the default NaN whatever the sign)",
                 negated, expected, actual);
  };
  property.base = [](const QuantizeCase& c) -> const QuantizeCase& { return c; };
  property.shown = applicable_classes(space);
  property.promised = {CoverageClass::kNanBlock, CoverageClass::kInfBlock, CoverageClass::kMixedSignBlock,
                       CoverageClass::kNegativeToNegativeZero, CoverageClass::kZeroBlock};
  return run_property(property, subject, settings, id);
}

}  // namespace mxconform::properties
