// FP4 packing: every lane stride and parity packs the same codes; unpacking (impl/fp4_pack.h)
// with the same stride and parity gets them back.
#include "mxconform/error.h"
#include "properties.h"

namespace mxconform::properties {

PropertyOutcome check_fp4_packing(const Subject& subject, const CaseSpace& space, const RunSettings& settings,
                                  const std::string& id) {
  for (OutputDtype output : space.outputs) {
    if (!is_fp4(output)) throw Error("FP4 packing: the case space holds " + std::string(name(output)));
  }
  Property<QuantizeCase> property(
      "FP4 packing",
      "for every legal lane stride and parity, unpacking with them returns the stride-0 codes and scales",
      quantize_cases(space));
  property.gate_cases = kMetamorphicGateCases;
  property.check = [&subject](const QuantizeCase& c) {
    QuantizeCase reference = c;
    reference.config.fp4_lane_stride = 0;
    reference.config.fp4_high_parity = 1;
    const Outputs plain = quantize(subject, reference);
    const auto codes = element_codes(reference.config, plain.data);
    std::vector<std::uint32_t> strides = {0};
    for (std::uint32_t s : legal_lane_strides(c.config.partitions, c.config.free)) strides.push_back(s);
    for (std::uint32_t stride : strides) {
      for (int parity : {0, 1}) {
        QuantizeCase packed = c;
        packed.config.fp4_lane_stride = stride;
        packed.config.fp4_high_parity = parity;
        const Outputs actual = quantize(subject, packed);
        if (element_codes(packed.config, actual.data) == codes && actual.scale == plain.scale) continue;
        Outputs expected = actual;
        expected.scale = plain.scale;
        for (std::size_t k = 0; k < codes.size(); ++k) set_code(packed.config, expected.data, k, codes[k]);
        require_same("FP4 packing", subject, "the stride-0 codes and scales, packed with this stride and parity",
                     packed, expected, actual);
      }
    }
  };
  property.base = [](const QuantizeCase& c) -> const QuantizeCase& { return c; };
  property.shown = applicable_classes(space);
  property.promised = {CoverageClass::kSingleBlock, CoverageClass::kPNotMultipleOf32};
  return run_property(property, subject, settings, id);
}

}  // namespace mxconform::properties
