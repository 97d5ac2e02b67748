#include "case_gen.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "block_gen.h"
#include "index_gen.h"

namespace mxconform::properties {
namespace {

struct Shape {
  std::size_t block_rows;
  std::size_t block_cols;
};

struct Knobs {
  std::size_t output;  // index into CaseSpace::outputs
  bool float16;
  bool emax_minus_1;
  bool nan_to_zero;
  bool logical_layout;
  std::size_t stride;  // < kNoStridePicks: stride 0; otherwise an index into the legal strides
  bool high_parity_0;
};

constexpr std::size_t kStridePicks = 64;
constexpr std::size_t kNoStridePicks = kStridePicks / 4;
constexpr std::size_t kLargestShapePicks = 16;  // one pick in this many takes the largest shape

// Always `value`, shrinking towards 1.
rc::Gen<std::size_t> starting_at(std::size_t value) {
  return [value](const rc::Random&, int) {
    return rc::shrinkable::shrinkRecur(value, [](std::size_t x) { return rc::shrink::towards<std::size_t>(x, 1); });
  };
}

rc::Gen<Shape> shapes(const CaseSpace& space) {
  // gen::inRange widens with the size: small tensors first, as RapidCheck intends. The largest
  // shape is drawn as values that shrink like any other, not as a flag that shrinking would drop.
  return rc::gen::mapcat(index_below(kLargestShapePicks), [space](std::size_t largest) {
    const bool take_largest = largest == kLargestShapePicks - 1;
    const auto rows =
        take_largest ? starting_at(space.max_block_rows) : rc::gen::inRange<std::size_t>(1, space.max_block_rows + 1);
    const auto cols =
        take_largest ? starting_at(space.max_block_cols) : rc::gen::inRange<std::size_t>(1, space.max_block_cols + 1);
    return rc::gen::map(rc::gen::tuple(rows, cols), [](const auto& dims) {
      return Shape{std::get<0>(dims), std::get<1>(dims)};
    });
  });
}

rc::Gen<Knobs> knobs(const CaseSpace& space) {
  return rc::gen::map(rc::gen::tuple(index_below(space.outputs.size()), coin(), coin(), coin(), coin(),
                                     index_below(kStridePicks), coin()),
                      [](const auto& picks) {
                        const auto& [output, float16, emax_minus_1, nan_to_zero, logical, stride, parity_0] = picks;
                        return Knobs{output, float16, emax_minus_1, nan_to_zero, logical, stride, parity_0};
                      });
}

QuantizeConfig configure(const CaseSpace& space, const Shape& shape, const Knobs& knobs) {
  QuantizeConfig config;
  config.output = space.outputs[knobs.output];
  config.input = knobs.float16 ? InputDtype::kFloat16 : InputDtype::kBfloat16;
  config.partitions = shape.block_rows * kBlockRows;
  config.free = shape.block_cols * kBlockCols;
  config.emax_mode = knobs.emax_minus_1 ? EmaxMode::kEmaxMinus1 : EmaxMode::kEmax;
  config.fp8_nan = knobs.nan_to_zero ? Fp8NanPolicy::kZero : Fp8NanPolicy::kCanonical;
  config.scale_layout = knobs.logical_layout ? ScaleLayout::kLogical : ScaleLayout::kPhysical;
  config.fp4_high_parity = knobs.high_parity_0 ? 0 : 1;
  if (knobs.stride >= kNoStridePicks) {
    const auto strides = legal_lane_strides(config.partitions, config.free);
    config.fp4_lane_stride = strides[(knobs.stride - kNoStridePicks) % strides.size()];
  }
  validate(config);
  return config;
}

}  // namespace

std::vector<std::uint32_t> legal_lane_strides(std::size_t partitions, std::size_t free) {
  const std::size_t nibble_pairs = partitions * free / 2;
  std::vector<std::uint32_t> strides;
  for (std::size_t s = 1; s <= nibble_pairs; ++s) {
    if (nibble_pairs % s == 0) strides.push_back(static_cast<std::uint32_t>(s));
  }
  return strides;
}

rc::Gen<QuantizeCase> quantize_cases(const CaseSpace& space) {
  return rc::gen::map(
      rc::gen::tuple(shapes(space), knobs(space), rc::gen::container<std::vector<BlockRecipe>>(block_recipes())),
      [space](const auto& parts) {
        const auto& [shape, knob_values, generated] = parts;
        // An empty list (size 0, or shrunk) stands for one default recipe.
        const std::vector<BlockRecipe> recipes = generated.empty() ? std::vector<BlockRecipe>(1) : generated;
        QuantizeCase c;
        c.config = configure(space, shape, knob_values);
        c.input.resize(c.config.partitions * c.config.free);
        for (std::size_t g = 0; g < shape.block_rows; ++g) {
          for (std::size_t col = 0; col < shape.block_cols; ++col) {
            const BlockRecipe& recipe = recipes[(g * shape.block_cols + col) % recipes.size()];
            const BlockBits block = materialize(recipe, c.config);
            for (std::size_t k = 0; k < kBlockSize; ++k) {
              c.input[element_index(c.config, g, col, k)] = block[k];
            }
          }
        }
        return c;
      });
}

QuantizeCase draw_case(const CaseSpace& space, std::uint64_t seed, int size) {
  return quantize_cases(space)(rc::Random(seed), std::clamp(size, 0, kMaxGenerationSize)).value();
}

}  // namespace mxconform::properties
