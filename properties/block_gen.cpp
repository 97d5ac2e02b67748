#include "block_gen.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "element_gen.h"
#include "element_grid.h"
#include "index_gen.h"
#include "input_value.h"
#include "mxconform/formats.h"

namespace mxconform::properties {
namespace {

// Element points and anchor points are drawn below this and taken modulo their table, so one
// recipe fits every configuration.
constexpr std::size_t kPointRange = 1 << 12;
// One element in 256 is Inf or NaN: about one block in nine holds one, besides the aimed blocks
// whose maximum is Inf or NaN.
constexpr std::size_t kSpecialPicks = 512;

constexpr int kInfNanField = static_cast<int>(Float32::kExponentFieldMax);
constexpr int kLargestFiniteField = kInfNanField - 1;
// fp32 exponent fields a float16 reaches: its smallest subnormal and its largest finite binade.
constexpr int kFloat16MinField = Float32::kBias + Float16::kEmin - Float16::kMantissaBits;
constexpr int kFloat16MaxField = Float32::kBias + Float16::kEmax;
static_assert(kFloat16MinField == 103 && kFloat16MaxField == 142);

// docs/contract.md step 3, restated to aim blocks (the oracle checks the subjects' reading of it).
int e8m0_for(int max_field, int emax_bias) { return std::max(1, std::max(0, max_field - emax_bias)); }

// Simpler first: what a shrunk case should be made of.
enum Rank { kOneRank, kPowerOfTwoRank, kGridRank, kTieRank, kEdgeRank };

struct Point {
  double y;  // a prescaled magnitude
  Rank rank;
};

bool is_power_of_two(double value) {
  int e2;
  return std::frexp(value, &e2) == 0.5;
}

// Prescaled magnitudes worth aiming at: every code's value, every tie, the neighbourhood of max,
// the tie to zero and values far below it.
std::vector<Point> interesting_points(const ElementGrid& grid) {
  std::vector<Point> points;
  for (std::size_t c = 1; c < grid.values.size(); ++c) {
    const double value = grid.values[c];
    points.push_back({value, value == 1 ? kOneRank : is_power_of_two(value) ? kPowerOfTwoRank : kGridRank});
    points.push_back({(grid.values[c - 1] + value) / 2, kTieRank});
  }
  for (double quarters : {1.0, 2.0, 3.0}) points.push_back({grid.max + grid.top_gap * quarters / 4, kEdgeRank});
  for (int below : {1, 2, 8, 30}) points.push_back({std::ldexp(grid.smallest_subnormal, -below), kEdgeRank});
  return points;
}

struct AimedTables {
  std::vector<std::uint16_t> magnitudes;  // [0] is zero; the rest have a field <= the block maximum's
  std::vector<std::uint16_t> maxima;      // magnitudes whose field is exactly the block maximum's
};

AimedTables build_aimed_tables(const QuantizeConfig& config, int max_field) {
  const InputDtype input = config.input;
  const int e8m0 = e8m0_for(max_field, emax_bias(config));
  const int finite_limit = std::min(max_field, kLargestFiniteField);
  std::vector<std::pair<Rank, std::uint16_t>> ranked;
  for (const Point& p : interesting_points(element_grid(info(config.output).element))) {
    const auto bits = bits_of(input, std::ldexp(p.y, e8m0 - E8M0::kBias));
    if (bits && *bits != 0 && fp32_exponent_field(input, *bits) <= finite_limit) ranked.emplace_back(p.rank, *bits);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  AimedTables tables;
  tables.magnitudes.push_back(0);
  for (const auto& [rank, bits] : ranked) {
    if (std::find(tables.magnitudes.begin(), tables.magnitudes.end(), bits) == tables.magnitudes.end()) {
      tables.magnitudes.push_back(bits);
    }
  }
  if (max_field == kInfNanField) {
    tables.maxima.push_back(inf_element(input));
    const auto& nans = nan_elements(input);
    tables.maxima.insert(tables.maxima.end(), nans.begin(), nans.end());
  } else if (max_field == 0) {  // bfloat16 only: the maximum is an fp32 denormal
    const auto& subnormals = subnormal_elements(input);
    tables.maxima.assign(subnormals.begin() + 1, subnormals.end());
  } else {
    const int unbiased = max_field - Float32::kBias;
    const double widest_significand = 2 - std::ldexp(1.0, -mantissa_bits(input));
    for (double edge : {std::ldexp(1.0, unbiased), std::ldexp(widest_significand, unbiased)}) {
      if (const auto bits = bits_of(input, edge)) tables.maxima.push_back(*bits);
    }
    for (std::uint16_t bits : tables.magnitudes) {
      if (fp32_exponent_field(input, bits) == max_field &&
          std::find(tables.maxima.begin(), tables.maxima.end(), bits) == tables.maxima.end()) {
        tables.maxima.push_back(bits);
      }
    }
  }
  return tables;
}

const AimedTables& aimed_tables(const QuantizeConfig& config, int max_field) {
  using Key = std::tuple<InputDtype, OutputDtype, EmaxMode, int>;
  static std::map<Key, AimedTables> cache;
  const Key key{config.input, config.output, config.emax_mode, max_field};
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, build_aimed_tables(config, max_field)).first;
  return it->second;
}

std::uint16_t entry(const std::vector<std::uint16_t>& table, std::size_t point) { return table[point % table.size()]; }

rc::Gen<ElementChoice> element_choices() {
  return rc::gen::map(
      rc::gen::tuple(index_below(kPointRange), index_below(4), coin(), index_below(kSpecialPicks)),
      [](const auto& picks) {
        const auto& [point, nudge, negative, special] = picks;
        ElementChoice choice;
        choice.point = static_cast<std::uint16_t>(point);
        choice.nudge = static_cast<std::int8_t>(nudge == 2 ? 1 : nudge == 3 ? -1 : 0);  // half the elements
        choice.negative = negative;
        choice.special = special == kSpecialPicks - 1   ? Special::kNan
                         : special == kSpecialPicks - 2 ? Special::kInf
                                                        : Special::kNone;
        return choice;
      });
}

BlockKind kind_of(std::size_t pick) {
  constexpr std::size_t kAimedPicks = 11;  // of 16: the other kinds get 3, 1 and 1
  if (pick < kAimedPicks) return BlockKind::kAimed;
  if (pick < kAimedPicks + 3) return BlockKind::kTestFloat;
  return pick == kAimedPicks + 3 ? BlockKind::kSubnormal : BlockKind::kZero;
}

}  // namespace

bool operator==(const ElementChoice& lhs, const ElementChoice& rhs) {
  return lhs.point == rhs.point && lhs.nudge == rhs.nudge && lhs.negative == rhs.negative && lhs.special == rhs.special;
}

bool operator==(const BlockRecipe& lhs, const BlockRecipe& rhs) {
  return lhs.kind == rhs.kind && lhs.max_field == rhs.max_field && lhs.anchor == rhs.anchor &&
         lhs.anchor_point == rhs.anchor_point && lhs.elements == rhs.elements;
}

int aimed_max_field(std::size_t index, const QuantizeConfig& config) {
  const int bias = emax_bias(config);
  const int unit = Float32::kBias + bias;  // E8M0 127: the prescale multiplies by 1
  const int table[] = {unit,
                       bias,
                       bias + 1,
                       bias - 1,
                       0,
                       bias + 2,
                       kLargestFiniteField,
                       kInfNanField,
                       kLargestFiniteField - 1,
                       unit + 1,
                       unit - 1,
                       unit + 9,
                       unit - 9,
                       unit + 40,
                       unit - 40,
                       unit - 100};
  const int field = table[index % std::size(table)];
  if (field == kInfNanField) return field;
  if (config.input == InputDtype::kFloat16) return std::clamp(field, kFloat16MinField, kFloat16MaxField);
  return std::clamp(field, 0, kLargestFiniteField);
}

rc::Gen<BlockRecipe> block_recipes() {
  return rc::gen::map(
      rc::gen::tuple(index_below(16), index_below(16), index_below(kBlockSize), index_below(kPointRange),
                     rc::gen::container<std::vector<ElementChoice>>(kBlockSize, element_choices())),
      [](const auto& picks) {
        const auto& [kind, max_field, anchor, anchor_point, elements] = picks;
        BlockRecipe recipe;
        recipe.kind = kind_of(kind);
        recipe.max_field = static_cast<std::uint8_t>(max_field);
        recipe.anchor = static_cast<std::uint8_t>(anchor);
        recipe.anchor_point = static_cast<std::uint16_t>(anchor_point);
        std::copy(elements.begin(), elements.end(), recipe.elements.begin());
        return recipe;
      });
}

BlockBits materialize(const BlockRecipe& recipe, const QuantizeConfig& config) {
  const InputDtype input = config.input;
  const std::uint16_t zero = 0;
  const std::vector<std::uint16_t> zeros{zero};
  const int max_field = aimed_max_field(recipe.max_field, config);
  const AimedTables* aimed = recipe.kind == BlockKind::kAimed ? &aimed_tables(config, max_field) : nullptr;
  const std::vector<std::uint16_t>& table = recipe.kind == BlockKind::kAimed       ? aimed->magnitudes
                                            : recipe.kind == BlockKind::kTestFloat ? testfloat_elements(input)
                                            : recipe.kind == BlockKind::kSubnormal ? subnormal_elements(input)
                                                                                   : zeros;
  const bool specials_allowed = recipe.kind == BlockKind::kAimed || recipe.kind == BlockKind::kTestFloat;
  // A zero block may hold one special at its anchor, chosen by anchor_point % 3 (0: none, 1: NaN,
  // 2: Inf): the block of zeros and one NaN or Inf, where implementations forget the zero floor.
  const int lone_special = recipe.kind == BlockKind::kZero ? recipe.anchor_point % 3 : 0;
  // A nudged element must stay in its kind: below the aimed maximum's field, or subnormal.
  auto keeps_kind = [&](std::uint16_t bits) {
    switch (recipe.kind) {
      case BlockKind::kAimed: return fp32_exponent_field(input, bits) <= std::min(max_field, kLargestFiniteField);
      case BlockKind::kSubnormal: return is_zero_or_subnormal(input, bits);
      case BlockKind::kTestFloat: return true;
      case BlockKind::kZero: return false;
    }
    return false;
  };

  BlockBits bits{};
  for (std::size_t k = 0; k < kBlockSize; ++k) {
    const ElementChoice& choice = recipe.elements[k];
    std::uint16_t magnitude;
    if (aimed != nullptr && k == recipe.anchor) {
      magnitude = entry(aimed->maxima, recipe.anchor_point);
    } else if (lone_special != 0 && k == recipe.anchor) {
      magnitude = lone_special == 2 ? inf_element(input) : entry(nan_elements(input), choice.point);
    } else if (specials_allowed && choice.special != Special::kNone) {
      magnitude = choice.special == Special::kInf ? inf_element(input) : entry(nan_elements(input), choice.point);
    } else {
      magnitude = entry(table, choice.point);
      if (choice.nudge != 0) {
        const auto nudged = nudge(input, magnitude, choice.nudge);
        if (nudged && keeps_kind(*nudged)) magnitude = *nudged;
      }
    }
    bits[k] = static_cast<std::uint16_t>(magnitude | (choice.negative ? sign_mask(input) : 0));
  }
  return bits;
}

}  // namespace mxconform::properties
