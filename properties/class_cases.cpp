#include "class_cases.h"

#include <algorithm>
#include <random>

#include "block_gen.h"
#include "element_gen.h"
#include "input_value.h"
#include "mxconform/formats.h"

namespace mxconform::properties {
namespace {

constexpr std::size_t kBatch = 512;          // recipes tried between greedy picks
constexpr std::size_t kMaxRecipes = 16384;  // a bound; the search needs a few hundred

QuantizeConfig single_block(QuantizeConfig config) {
  config.partitions = kBlockRows;
  config.free = kBlockCols;
  if (config.fp4_lane_stride != 0 && kBlockSize % (2 * config.fp4_lane_stride) != 0) config.fp4_lane_stride = 0;
  return config;
}

// The classes one case hits, among `wanted`.
std::vector<CoverageClass> hits_of(const QuantizeCase& c, const std::vector<CoverageClass>& wanted) {
  Coverage coverage;
  coverage.add(c);
  std::vector<CoverageClass> out;
  for (CoverageClass id : wanted) {
    if (coverage.cases_hitting(id) > 0) out.push_back(id);
  }
  return out;
}

// Blocks no recipe kind builds on purpose: zeros with one NaN, one Inf, or both, and
// denormal-only blocks. Positions, signs and payloads come from `random`.
std::vector<BlockBits> hand_built(const QuantizeConfig& config, std::mt19937_64& random) {
  const InputDtype input = config.input;
  const std::uint16_t sign = sign_mask(input);
  const auto position = [&]() { return static_cast<std::size_t>(random() % kBlockSize); };
  const auto signed_zero = [&]() { return static_cast<std::uint16_t>(random() & 1 ? sign : 0); };
  const auto zeros = [&]() {
    BlockBits bits{};
    for (std::uint16_t& b : bits) b = signed_zero();
    return bits;
  };
  const std::uint16_t inf = inf_element(input);
  const std::vector<std::uint16_t>& nans = nan_elements(input);
  const std::vector<std::uint16_t>& subnormals = subnormal_elements(input);
  std::vector<BlockBits> out;
  BlockBits one_nan = zeros();
  one_nan[position()] = static_cast<std::uint16_t>(nans[random() % nans.size()] | signed_zero());
  out.push_back(one_nan);
  BlockBits one_inf = zeros();
  one_inf[position()] = static_cast<std::uint16_t>(inf | signed_zero());
  out.push_back(one_inf);
  BlockBits both = zeros();
  const std::size_t at = position();
  both[at] = nans[random() % nans.size()];
  both[(at + 1 + random() % (kBlockSize - 1)) % kBlockSize] = static_cast<std::uint16_t>(inf | sign);
  out.push_back(both);
  BlockBits denormal = zeros();
  for (std::uint16_t& b : denormal) {
    const std::uint16_t magnitude = subnormals[random() % subnormals.size()];
    if (random() % 4 != 0) b = static_cast<std::uint16_t>(magnitude | signed_zero());
  }
  out.push_back(denormal);
  return out;
}

BlockRecipe random_recipe(std::mt19937_64& random) {
  BlockRecipe recipe;
  const std::uint64_t kind = random() % 8;  // mostly aimed blocks: they hold the ties and edges
  recipe.kind = kind < 6 ? BlockKind::kAimed : kind == 6 ? BlockKind::kSubnormal : BlockKind::kZero;
  recipe.max_field = static_cast<std::uint8_t>(random() % 16);
  recipe.anchor = static_cast<std::uint8_t>(random() % kBlockSize);
  recipe.anchor_point = static_cast<std::uint16_t>(random());
  for (ElementChoice& e : recipe.elements) {
    e.point = static_cast<std::uint16_t>(random());
    const std::uint64_t nudge = random() % 4;
    e.nudge = static_cast<std::int8_t>(nudge == 2 ? 1 : nudge == 3 ? -1 : 0);
    e.negative = random() % 2 == 1;
    const std::uint64_t special = random() % 32;
    e.special = special == 0 ? Special::kNan : special == 1 ? Special::kInf : Special::kNone;
  }
  return recipe;
}

}  // namespace

std::vector<CoverageClass> promised_classes(const QuantizeConfig& config) {
  using C = CoverageClass;
  std::vector<C> out = {C::kNanBlock,   C::kInfBlock,  C::kZeroBlock,        C::kZeroBlockWithOneNan,
                        C::kZeroBlockWithOneInf,       C::kNanAndInfBlock,   C::kMixedSignBlock,
                        C::kLargestFiniteE8m0,         C::kNormalTie,        C::kSubnormalTie,
                        C::kTieToZero,  C::kBelowTie,  C::kAboveTie,         C::kFlushed,
                        C::kNegativeToNegativeZero,    C::kNanElement};
  // docs/contract.md step 4: an FP4 Inf block in EMAX-1 mode gets E8M0 254, where M = +0.
  const bool zero_multiplier = is_fp4(config.output) && config.emax_mode == EmaxMode::kEmaxMinus1;
  out.push_back(zero_multiplier ? C::kInfTimesZero : C::kInfSaturates);
  if (config.input == InputDtype::kBfloat16) {
    // float16's smallest exponent field (103, its subnormals) is far above every emaxBias, so
    // these three block classes need bfloat16 input.
    out.insert(out.end(), {C::kBfloat16Denormal, C::kBfloat16DenormalOnlyBlock, C::kZeroFloorBlock,
                           C::kClampLowBlock, C::kE8m0OneUnclamped});
  } else {
    out.insert(out.end(), {C::kFloat16Subnormal, C::kFloat16SubnormalOnlyBlock});
  }
  // In EMAX-1 mode a block's largest prescaled magnitude stays below 2^EMAX, under every
  // element format's max (6, 448, 57344): only Inf reaches saturation.
  if (config.emax_mode == EmaxMode::kEmax) out.insert(out.end(), {C::kExactMax, C::kAboveMaxToMax, C::kRoundsUpToSaturate});
  return out;
}

std::vector<QuantizeCase> class_cases(const QuantizeConfig& config, std::uint64_t seed) {
  const QuantizeConfig block = single_block(config);
  std::vector<CoverageClass> missing = promised_classes(config);
  std::mt19937_64 random(seed);
  std::vector<QuantizeCase> pool;
  for (const BlockBits& bits : hand_built(block, random)) pool.push_back({block, {bits.begin(), bits.end()}});

  std::vector<QuantizeCase> chosen;
  std::size_t recipes = 0;
  while (!missing.empty()) {
    // Greedy set cover: the candidate that hits the most classes still missing.
    std::size_t best = pool.size(), best_hits = 0;
    for (std::size_t i = 0; i < pool.size(); ++i) {
      const std::size_t n = hits_of(pool[i], missing).size();
      if (n > best_hits) {
        best = i;
        best_hits = n;
      }
    }
    if (best_hits == 0) {
      if (recipes >= kMaxRecipes) break;  // what is still missing, the caller's coverage check reports
      pool.clear();
      for (std::size_t i = 0; i < kBatch; ++i, ++recipes) {
        const BlockBits bits = materialize(random_recipe(random), block);
        pool.push_back({block, {bits.begin(), bits.end()}});
      }
      continue;
    }
    for (CoverageClass id : hits_of(pool[best], missing)) missing.erase(std::find(missing.begin(), missing.end(), id));
    chosen.push_back(pool[best]);
    pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(best));
  }
  return chosen;
}

}  // namespace mxconform::properties
