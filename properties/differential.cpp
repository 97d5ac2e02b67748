// The differential property: the oracle is the reference for every byte.
#include "oracle.h"
#include "properties.h"

namespace mxconform::properties {

PropertyOutcome check_differential(const Subject& subject, const CaseSpace& space, const RunSettings& settings,
                                   const std::string& id) {
  Property<QuantizeCase> property(
      "differential", "every data and scale byte equals the oracle's; scale rows no slot names stay unwritten",
      quantize_cases(space));
  property.gate_cases = kDifferentialGateCases;
  property.check = [&subject](const QuantizeCase& c) {
    require_same("differential", subject, "the oracle's output (unwritten bytes stay 0x5A in data, 0xEE in scale)", c,
                 quantize(oracle::backend(), c), quantize(subject, c));
  };
  property.base = [](const QuantizeCase& c) -> const QuantizeCase& { return c; };
  property.shown = applicable_classes(space);
  property.promised = property.shown;
  return run_property(property, subject, settings, id);
}

}  // namespace mxconform::properties
