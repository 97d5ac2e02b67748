// block_gen.cpp: aimed blocks reach the block maximum (and so the E8M0) they aim at, for every
// input dtype, output dtype and EMAX mode; the other kinds keep to their kind.
#include "block_gen.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "input_value.h"
#include "mxconform/formats.h"
#include "oracle.h"

namespace mxconform::properties {
namespace {

constexpr int kRecipes = 400;

std::vector<QuantizeConfig> every_block_config() {
  std::vector<QuantizeConfig> configs;
  for (InputDtype input : {InputDtype::kBfloat16, InputDtype::kFloat16}) {
    for (const OutputDtypeInfo& output : output_dtypes()) {
      for (EmaxMode mode : {EmaxMode::kEmax, EmaxMode::kEmaxMinus1}) {
        QuantizeConfig config;
        config.input = input;
        config.output = output.id;
        config.emax_mode = mode;
        config.partitions = kBlockRows;
        config.free = kBlockCols;
        configs.push_back(config);
      }
    }
  }
  return configs;
}

int max_field(const BlockBits& block, InputDtype input) {
  int field = 0;
  for (std::uint16_t bits : block) {
    field = std::max(field, oracle::fp32_exponent_field(oracle::decode(input_format(input), bits)));
  }
  return field;
}

TEST(BlockGen, AimedBlocksHitTheirMaximumField) {
  const auto recipes = block_recipes();
  for (int seed = 0; seed < kRecipes; ++seed) {
    BlockRecipe recipe = recipes(rc::Random(seed), rc::kNominalSize).value();
    recipe.kind = BlockKind::kAimed;
    for (ElementChoice& e : recipe.elements) e.special = Special::kNone;
    for (const QuantizeConfig& config : every_block_config()) {
      const BlockBits block = materialize(recipe, config);
      ASSERT_EQ(max_field(block, config.input), aimed_max_field(recipe.max_field, config))
          << describe(config) << " recipe " << seed;
    }
  }
}

TEST(BlockGen, TheAimTableReachesEveryClampAndTheLargestE8m0) {
  QuantizeConfig config = every_block_config().front();  // bfloat16 to FP4, EMAX mode: bias 2
  std::vector<int> fields;
  for (std::size_t i = 0; i < 16; ++i) fields.push_back(aimed_max_field(i, config));
  constexpr int kInfNan = Float32::kExponentFieldMax;
  for (int wanted : {Float32::kBias + 2, 2, 3, 1, 0, kInfNan - 1, kInfNan}) {
    EXPECT_NE(std::find(fields.begin(), fields.end(), wanted), fields.end()) << wanted;
  }
}

TEST(BlockGen, ZeroAndSubnormalBlocksKeepToTheirKind) {
  const auto recipes = block_recipes();
  for (int seed = 0; seed < kRecipes; ++seed) {
    BlockRecipe recipe = recipes(rc::Random(seed), rc::kNominalSize).value();
    for (const QuantizeConfig& config : every_block_config()) {
      recipe.kind = BlockKind::kZero;
      const BlockBits zero_block = materialize(recipe, config);
      for (std::size_t k = 0; k < kBlockSize; ++k) {
        const std::uint16_t bits = zero_block[k];
        if (k != recipe.anchor) {
          ASSERT_EQ(value_of(config.input, bits), 0.0);
          continue;
        }
        // The anchor: zero, or the one NaN or Inf that anchor_point % 3 asks for.
        switch (recipe.anchor_point % 3) {
          case 0: ASSERT_EQ(value_of(config.input, bits), 0.0); break;
          case 1: ASSERT_TRUE(is_nan(config.input, bits)); break;
          default: ASSERT_TRUE(is_inf(config.input, bits)); break;
        }
      }
      recipe.kind = BlockKind::kSubnormal;
      for (std::uint16_t bits : materialize(recipe, config)) ASSERT_TRUE(is_zero_or_subnormal(config.input, bits));
    }
  }
}

TEST(BlockGen, TheDefaultRecipeIsTheSimplestBlock) {
  // Every index 0: an aimed block at E8M0 127 whose maximum is the power of two at position 0,
  // every other element zero.
  const QuantizeConfig config = every_block_config().front();
  const BlockBits block = materialize(BlockRecipe{}, config);
  EXPECT_EQ(value_of(config.input, block[0]), 4.0);  // 2^EMAX of FP4
  EXPECT_TRUE(std::all_of(block.begin() + 1, block.end(), [](std::uint16_t bits) { return bits == 0; }));
}

}  // namespace
}  // namespace mxconform::properties
