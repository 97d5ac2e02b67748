// Block independence: rewriting one block leaves every byte of every other block as it was.
#include "block_gen.h"
#include "index_gen.h"
#include "properties.h"

namespace mxconform::properties {
namespace {

struct ChangedCase {
  QuantizeCase base;
  BlockRecipe replacement;
  std::size_t block;  // taken modulo the number of blocks, row-major
};
bool operator==(const ChangedCase& lhs, const ChangedCase& rhs) {
  return lhs.base == rhs.base && lhs.replacement == rhs.replacement && lhs.block == rhs.block;
}

constexpr std::size_t kBlockPicks = 1 << 16;

}  // namespace

PropertyOutcome check_block_independence(const Subject& subject, const CaseSpace& space,
                                         const RunSettings& settings, const std::string& id) {
  Property<ChangedCase> property(
      "block independence", "changing the elements of one block changes no byte of any other block",
      rc::gen::map(rc::gen::tuple(quantize_cases(space), block_recipes(), index_below(kBlockPicks)),
                   [](const auto& parts) {
                     const auto& [base, replacement, block] = parts;
                     return ChangedCase{base, replacement, block};
                   }));
  property.gate_cases = kMetamorphicGateCases;
  property.check = [&subject](const ChangedCase& c) {
    const QuantizeConfig& config = c.base.config;
    const Geometry g = geometry(config);
    const std::size_t changed_block = c.block % (g.block_rows * g.block_cols);
    const std::size_t changed_row = changed_block / g.block_cols, changed_col = changed_block % g.block_cols;
    QuantizeCase changed = c.base;
    const BlockBits replacement = materialize(c.replacement, config);
    for (std::size_t k = 0; k < kBlockSize; ++k) {
      changed.input[element_index(config, changed_row, changed_col, k)] = replacement[k];
    }
    const Outputs plain = quantize(subject, c.base);
    const Outputs actual = quantize(subject, changed);
    const auto plain_codes = element_codes(config, plain.data);
    Outputs expected = actual;
    for (std::size_t row = 0; row < g.block_rows; ++row) {
      for (std::size_t col = 0; col < g.block_cols; ++col) {
        if (row == changed_row && col == changed_col) continue;
        set_block_scale(config, expected.scale, row, col, block_scale(config, plain.scale, row, col));
        for (std::size_t k = 0; k < kBlockSize; ++k) {
          const std::size_t i = element_index(config, row, col, k);
          set_code(config, expected.data, i, plain_codes[i]);
        }
      }
    }
    require_same("block independence", subject, "outside the changed block, the subject's output before the change",
                 changed, expected, actual,
                 "block (" + std::to_string(changed_row) + ", " + std::to_string(changed_col) + ") was changed");
  };
  property.base = [](const ChangedCase& c) -> const QuantizeCase& { return c.base; };
  property.shown = applicable_classes(space);
  property.promised = {CoverageClass::kNanBlock, CoverageClass::kZeroFloorBlock, CoverageClass::kMixedSignBlock};
  return run_property(property, subject, settings, id);
}

}  // namespace mxconform::properties
