// Permutation within a block: the scale ignores the order of the 32 elements, and each code
// follows its element.
#include <array>
#include <utility>

#include "index_gen.h"
#include "properties.h"

namespace mxconform::properties {
namespace {

// permutation[k]: the original position of the element that lands at position k.
using Permutation = std::array<std::size_t, kBlockSize>;

Permutation identity() {
  Permutation p;
  for (std::size_t k = 0; k < kBlockSize; ++k) p[k] = k;
  return p;
}

// A case and one permutation per block: block i takes permutations[i % size] (none: the identity).
struct PermutedCase {
  QuantizeCase base;
  std::vector<Permutation> permutations;
};
bool operator==(const PermutedCase& lhs, const PermutedCase& rhs) {
  return lhs.base == rhs.base && lhs.permutations == rhs.permutations;
}

const Permutation& permutation_of(const PermutedCase& c, std::size_t block) {
  static const Permutation kIdentity = identity();
  return c.permutations.empty() ? kIdentity : c.permutations[block % c.permutations.size()];
}

// Fisher-Yates from 31 picks: position i swaps with i - pick % (i + 1), so picks of 0 (what
// shrinking moves to) leave the identity.
rc::Gen<Permutation> permutations() {
  return rc::gen::map(rc::gen::container<std::vector<std::size_t>>(kBlockSize - 1, index_below(kBlockSize)),
                      [](const std::vector<std::size_t>& picks) {
                        Permutation p = identity();
                        for (std::size_t i = kBlockSize - 1; i >= 1; --i) {
                          std::swap(p[i], p[i - picks[i - 1] % (i + 1)]);
                        }
                        return p;
                      });
}

}  // namespace

PropertyOutcome check_permutation_within_block(const Subject& subject, const CaseSpace& space,
                                               const RunSettings& settings, const std::string& id) {
  Property<PermutedCase> property(
      "permutation within a block", "permuting a block's elements keeps its scale and permutes its codes the same way",
      rc::gen::map(rc::gen::tuple(quantize_cases(space), rc::gen::container<std::vector<Permutation>>(permutations())),
                   [](const auto& parts) {
                     return PermutedCase{std::get<0>(parts), std::get<1>(parts)};
                   }));
  property.gate_cases = kMetamorphicGateCases;
  property.check = [&subject](const PermutedCase& c) {
    const QuantizeConfig& config = c.base.config;
    const Geometry g = geometry(config);
    QuantizeCase permuted = c.base;
    for (std::size_t b = 0; b < g.block_rows * g.block_cols; ++b) {
      const Permutation& p = permutation_of(c, b);
      const std::size_t row = b / g.block_cols, col = b % g.block_cols;
      for (std::size_t k = 0; k < kBlockSize; ++k) {
        permuted.input[element_index(config, row, col, k)] = c.base.input[element_index(config, row, col, p[k])];
      }
    }
    const Outputs plain = quantize(subject, c.base);
    const Outputs actual = quantize(subject, permuted);
    const auto plain_codes = element_codes(config, plain.data);
    Outputs expected = actual;
    for (std::size_t b = 0; b < g.block_rows * g.block_cols; ++b) {
      const Permutation& p = permutation_of(c, b);
      const std::size_t row = b / g.block_cols, col = b % g.block_cols;
      set_block_scale(config, expected.scale, row, col, block_scale(config, plain.scale, row, col));
      for (std::size_t k = 0; k < kBlockSize; ++k) {
        set_code(config, expected.data, element_index(config, row, col, k),
                 plain_codes[element_index(config, row, col, p[k])]);
      }
    }
    require_same("permutation within a block", subject,
                 "the subject's output for the unpermuted input, each block's codes permuted alike", permuted, expected,
                 actual);
  };
  property.base = [](const PermutedCase& c) -> const QuantizeCase& { return c.base; };
  property.shown = applicable_classes(space);
  property.promised = {CoverageClass::kNanBlock, CoverageClass::kMixedSignBlock, CoverageClass::kSubnormalTie};
  return run_property(property, subject, settings, id);
}

}  // namespace mxconform::properties
