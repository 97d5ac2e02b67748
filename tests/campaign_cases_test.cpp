// The campaigns' cases apart from running them (certify/campaign_cases.h): the configurations
// the knob rules give (counted by hand), the level's counts, and that a seed fixes the cases.
#include "campaign_cases.h"

#include <set>

#include <gtest/gtest.h>

#include "mxconform/error.h"

namespace mxconform::certify {
namespace {

TEST(CampaignConfigurations, OnePerDtypePairOrEveryKnobCombination) {
  QuantizeConfig knobs;
  knobs.fp4_lane_stride = 2;
  const std::vector<QuantizeConfig> given = campaign_configurations(knobs, false);
  ASSERT_EQ(given.size(), 2u * 5u);  // bfloat16, float16 x five output dtypes
  for (const QuantizeConfig& c : given) EXPECT_EQ(c.fp4_lane_stride, is_fp4(c.output) ? 2u : 0u);
  // Per input dtype: four FP8 dtypes x 2 EMAX modes x 2 layouts x 2 NaN policies, and FP4 x 2 x 2
  // x 2 parities x 5 strides.
  EXPECT_EQ(campaign_configurations(knobs, true).size(), 2u * (4u * 2 * 2 * 2 + 2u * 2 * 2 * 5));
}

// A corpus case is part of a request when its profile and block shape are the request's and each
// knob named has the request's value; an FP8 case has no lane knobs and an FP4 case no NaN policy.
TEST(InRequest, ProfileBlockShapeAndTheNamedKnobsOnly) {
  QuantizeConfig request;
  request.emax_mode = EmaxMode::kEmaxMinus1;
  request.fp4_lane_stride = 2;
  QuantizeConfig fp8 = request;  // float8_e4m3fn by default
  fp8.emax_mode = EmaxMode::kEmax;
  fp8.fp4_lane_stride = 0;
  NamedKnobs none;
  EXPECT_TRUE(in_request(request, none, fp8)) << "a knob not named takes any value";
  NamedKnobs emax;
  emax.emax_mode = true;
  EXPECT_FALSE(in_request(request, emax, fp8));
  fp8.emax_mode = EmaxMode::kEmaxMinus1;
  EXPECT_TRUE(in_request(request, emax, fp8));
  NamedKnobs stride;
  stride.lane_stride = true;
  EXPECT_TRUE(in_request(request, stride, fp8)) << "an FP8 case has no lane stride";
  QuantizeConfig fp4 = fp8;
  fp4.output = OutputDtype::kFloat4E2m1fnX4;
  EXPECT_FALSE(in_request(request, stride, fp4));
  fp4.fp4_lane_stride = 2;
  fp4.fp8_nan = Fp8NanPolicy::kZero;
  NamedKnobs nan;
  nan.fp8_nan = true;
  EXPECT_TRUE(in_request(request, stride, fp4));
  EXPECT_TRUE(in_request(request, nan, fp4)) << "an FP4 case has no FP8 NaN policy";
  // Another profile, or another block shape of the same profile: never part of the request.
  QuantizeConfig te;
  apply_profile(te, ProfileId::kTransformerEngineMxfp8);  // 1x32 by default
  QuantizeConfig te_32x1 = te;
  te_32x1.block_shape = BlockShape::k32x1;
  EXPECT_TRUE(in_request(te, none, te));
  EXPECT_FALSE(in_request(te_32x1, none, te));
  EXPECT_FALSE(in_request(te, none, te_32x1));
  EXPECT_FALSE(in_request(request, none, te));
  // --all-knobs: every block shape of the profile, still never another profile.
  EXPECT_TRUE(in_request(te, every_knob(), te_32x1));
  EXPECT_TRUE(in_request(te_32x1, every_knob(), te));
  EXPECT_FALSE(in_request(request, every_knob(), te));
}

// The exhaustive element campaign is neuron-only: asked for alone under another profile, a usage
// error naming the flag and the reason; asked for with others, skipped with the reason.
TEST(SkippedCampaigns, TheExhaustiveCampaignIsNeuronOnly) {
  QuantizeConfig neuron;
  EXPECT_TRUE(skipped_campaigns({"corpus", "exhaustive", "properties"}, neuron).empty());
  QuantizeConfig floor;
  apply_profile(floor, ProfileId::kOcpFloor);
  const std::vector<std::string> skipped = skipped_campaigns({"corpus", "exhaustive"}, floor);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0], "exhaustive: the exhaustive element campaign is neuron-only (it follows the neuron path); "
                        "profile ocp-floor has no case in it");
  try {
    skipped_campaigns({"exhaustive"}, floor);
    ADD_FAILURE() << "no Error for the exhaustive campaign alone under ocp-floor";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              "--campaign exhaustive: the exhaustive element campaign is neuron-only (it follows the neuron path); "
              "profile ocp-floor has no case in it; ask for corpus or properties (the profile campaign)");
  }
}

// 32x1 blocks (microxcaling along the first axis): every dtype, the x4 ones on four copies of
// the block side by side (F must be a multiple of 4), copy k the block rotated by k elements so
// that no two packed FP4 columns are equal; the others on one block. Then the tensor cases.
TEST(ProfileCases, A32x1BlockIsCopiedRotatedAcrossFourColumnsForX4Dtypes) {
  QuantizeConfig knobs;
  apply_profile(knobs, ProfileId::kMicroxcaling);
  knobs.block_shape = BlockShape::k32x1;
  const std::vector<QuantizeConfig> configs = campaign_configurations(knobs, false);
  ASSERT_EQ(configs.size(), 2u * 5u);  // bfloat16, float16 x five output dtypes
  for (const QuantizeConfig& config : configs) {
    std::vector<CampaignCase> cases;
    for_each_profile_case(config, Level::kGate, 1, [&](const CampaignCase& c) { cases.push_back(c); });
    ASSERT_FALSE(cases.empty());
    const bool x4 = config.output == OutputDtype::kFloat4E2m1fnX4 || config.output == OutputDtype::kFloat8E4m3fnX4 ||
                    config.output == OutputDtype::kFloat8E5m2X4;
    bool ties_seen = false;
    for (const CampaignCase& c : cases) {
      if (c.id.rfind("tensor.", 0) == 0) continue;
      EXPECT_EQ(c.config.partitions, 32u);
      EXPECT_EQ(c.config.free, x4 ? 4u : 1u);
      EXPECT_EQ(c.expected_scale.size(), c.config.free);  // one E8M0 per column block
      for (std::size_t row = 0; row < 32; ++row) {
        for (std::size_t col = 1; col < c.config.free; ++col) {
          EXPECT_EQ(c.input[row * c.config.free + col], c.input[(row + col) % 32 * c.config.free]) << c.id;
        }
      }
      if (c.id == "fp4.ties") {
        ties_seen = true;
        // The block's element 1, 0.25 (bfloat16 0x3E80, float16 0x3400): row 1 of copy 0 and
        // row 30 of copy 3 (30 + 3 = 33 = 1 mod 32); its element 0, 5, beside it in copy 1.
        EXPECT_EQ(c.input[1 * 4 + 0], config.input == InputDtype::kBfloat16 ? 0x3E80 : 0x3400);
        EXPECT_EQ(c.input[30 * 4 + 3], config.input == InputDtype::kBfloat16 ? 0x3E80 : 0x3400);
        EXPECT_EQ(c.input[31 * 4 + 1], config.input == InputDtype::kBfloat16 ? 0x40A0 : 0x4500);
        // Every copy holds the same values, so every column block gets the same E8M0.
        EXPECT_EQ(c.expected_scale, std::vector<std::uint8_t>(4, c.expected_scale[0]));
      }
    }
    EXPECT_EQ(ties_seen, is_fp4(config.output)) << name(config.output);
  }
}

// Tensors of several blocks follow the single blocks, in every block shape a profile admits:
// more than four block rows, more than 32 partitions, blocks that differ from their neighbours
// (so their scale bytes differ), F a multiple of 4 for the x4 dtypes.
TEST(ProfileCases, TensorsOfSeveralDifferentBlocksFollowTheSingleBlocks) {
  for (const auto& [profile_id, shape] : {std::pair{ProfileId::kOcpFloor, BlockShape::k1x32},
                                          std::pair{ProfileId::kMicroxcaling, BlockShape::k32x1},
                                          std::pair{ProfileId::kNkiGolden, BlockShape::k8x4}}) {
    QuantizeConfig knobs;
    apply_profile(knobs, profile_id);
    knobs.block_shape = shape;
    for (const QuantizeConfig& config : campaign_configurations(knobs, false)) {
      const BlockExtent block = extent(shape);
      std::size_t tensors = 0, most_block_rows = 0, most_partitions = 0;
      bool scales_differ = false, after_singles = true, seen_tensor = false;
      for_each_profile_case(config, Level::kGate, 1, [&](const CampaignCase& c) {
        const bool tensor = c.id.rfind("tensor.", 0) == 0;
        if (!tensor && seen_tensor) after_singles = false;
        seen_tensor = seen_tensor || tensor;
        if (!tensor) return;
        ++tensors;
        EXPECT_EQ(c.config.partitions % block.rows, 0u) << c.id;
        EXPECT_EQ(c.config.free % block.cols, 0u) << c.id;
        EXPECT_EQ(c.config.free % static_cast<std::size_t>(info(config.output).elements_per_container), 0u) << c.id;
        EXPECT_NE(c.config.partitions / block.rows, c.config.free / block.cols) << c.id << ": square";
        most_block_rows = std::max(most_block_rows, c.config.partitions / block.rows);
        most_partitions = std::max(most_partitions, c.config.partitions);
        for (std::size_t i = 1; i < c.expected_scale.size(); ++i) scales_differ = scales_differ || c.expected_scale[i] != c.expected_scale[0];
      });
      EXPECT_GE(tensors, 3u) << name(profile_id) << " " << name(config.output);
      EXPECT_TRUE(after_singles) << name(profile_id);
      EXPECT_GT(most_block_rows, 4u) << name(profile_id);
      EXPECT_GT(most_partitions, 32u) << name(profile_id);
      EXPECT_TRUE(scales_differ) << name(profile_id) << " " << name(config.output);
    }
  }
}

// Under --all-knobs another profile runs every block shape, EMAX mode, scale layout and FP8 NaN
// policy it admits: nki-golden (8x4; both EMAX modes, both layouts; canonical NaN; FP8 only) is
// 2 x 2 x 2 inputs x 4 FP8 outputs; without --all-knobs one of each.
TEST(CampaignConfigurations, AllKnobsCrossesTheValuesAnotherProfileAdmits) {
  QuantizeConfig knobs;
  apply_profile(knobs, ProfileId::kNkiGolden);
  const std::vector<QuantizeConfig> all = campaign_configurations(knobs, true);
  EXPECT_EQ(all.size(), 2u * 2u * 2u * 4u);
  EXPECT_EQ(campaign_configurations(knobs, false).size(), 2u * 4u);
  std::set<std::pair<int, int>> seen;
  for (const QuantizeConfig& c : all) seen.insert({static_cast<int>(c.emax_mode), static_cast<int>(c.scale_layout)});
  EXPECT_EQ(seen.size(), 4u);
  // transformer-engine-mxfp8: both of its block shapes.
  apply_profile(knobs, ProfileId::kTransformerEngineMxfp8);
  std::set<BlockShape> shapes;
  for (const QuantizeConfig& c : campaign_configurations(knobs, true)) shapes.insert(c.block_shape);
  EXPECT_EQ(shapes, (std::set<BlockShape>{BlockShape::k1x32, BlockShape::k32x1}));
}

TEST(CampaignConfigurations, AllKnobsAddsEveryOtherDeclaredStrideOnce) {
  QuantizeConfig knobs;
  const std::size_t crossed = campaign_configurations(knobs, true).size();
  // Strides 1 and 5 declared: 1 is crossed already, 5 gets one configuration per input dtype.
  const std::vector<QuantizeConfig> with_five = campaign_configurations(knobs, true, (1u << 1) | (1u << 5));
  ASSERT_EQ(with_five.size(), crossed + 2);
  EXPECT_EQ(with_five[crossed].fp4_lane_stride, 5u);
  EXPECT_TRUE(is_fp4(with_five[crossed].output));
  // Bit 63 (every stride from 63 up) as strides 63 and 128.
  const std::vector<QuantizeConfig> high = campaign_configurations(knobs, true, std::uint64_t{1} << 63);
  ASSERT_EQ(high.size(), crossed + 4);
  EXPECT_EQ(high[crossed].fp4_lane_stride, 63u);
  EXPECT_EQ(high[crossed + 2].fp4_lane_stride, 128u);
  // Without --all-knobs the declared strides change nothing.
  EXPECT_EQ(campaign_configurations(knobs, false, ~std::uint64_t{0}).size(), 2u * 5u);
}

TEST(CampaignConfigurations, AStrideAboveTheLimitIsRefusedNamingIt) {
  QuantizeConfig knobs;
  knobs.fp4_lane_stride = kMaxCampaignLaneStride;
  EXPECT_NO_THROW(campaign_configurations(knobs, false));
  knobs.fp4_lane_stride = kMaxCampaignLaneStride + 1;
  try {
    campaign_configurations(knobs, false);
    ADD_FAILURE() << "no Error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("lane stride 4097: the campaigns cover strides 0 to 4096"), std::string::npos)
        << error.what();
  }
}

// [8, 12] with stride 3: P*F = 96 is not a multiple of 6? It is (96 = 16 * 6): unchanged. [8, 4]
// with stride 3: 32 % 6 != 0, so F grows to 12 (the smallest multiple of 4 with 8F % 6 == 0),
// rows keep their elements in front and zeros behind.
TEST(WidenForStride, AppendsZeroColumnsUntilTheStrideFits) {
  QuantizeConfig config;
  config.output = OutputDtype::kFloat4E2m1fnX4;
  config.fp4_lane_stride = 3;
  config.partitions = 8;
  config.free = 12;
  std::vector<std::uint16_t> input(96, 0x3F80);
  EXPECT_FALSE(widen_for_stride(config, input));
  EXPECT_EQ(config.free, 12u);
  config.free = 4;
  input.assign(32, 0);
  for (std::size_t k = 0; k < input.size(); ++k) input[k] = static_cast<std::uint16_t>(0x3F80 + k);
  ASSERT_TRUE(widen_for_stride(config, input));
  EXPECT_EQ(config.free, 12u);
  ASSERT_EQ(input.size(), 96u);
  for (std::size_t row = 0; row < 8; ++row) {
    for (std::size_t col = 0; col < 12; ++col) {
      EXPECT_EQ(input[row * 12 + col], col < 4 ? 0x3F80 + row * 4 + col : 0u) << row << ", " << col;
    }
  }
  EXPECT_NO_THROW(validate(config));
  // FP8 and stride 0 are never widened.
  config.fp4_lane_stride = 0;
  config.free = 4;
  input.assign(32, 0);
  EXPECT_FALSE(widen_for_stride(config, input));
}

// A stride that no power of two divides: every case of both generated campaigns is a shape the
// stride allows (backend.h promises backends nothing else), with the oracle's bytes sized for it.
TEST(CampaignCases, AnOddStrideGetsShapesThatAllowIt) {
  for (std::uint32_t stride : {3u, 31u, 4096u}) {
    QuantizeConfig config;
    config.output = OutputDtype::kFloat4E2m1fnX4;
    config.fp4_lane_stride = stride;
    std::size_t cases = 0;
    const auto check = [&](const CampaignCase& c) {
      ++cases;
      EXPECT_EQ(c.config.fp4_lane_stride, stride) << c.id;
      EXPECT_NO_THROW(validate(c.config)) << c.id;
      EXPECT_EQ(c.input.size(), c.config.partitions * c.config.free) << c.id;
      EXPECT_EQ(c.expected_data.size(), geometry(c.config).data_bytes) << c.id;
    };
    for_each_exhaustive_case(config, Level::kGate, check);
    for_each_property_case(config, Level::kGate, 1, check);
    EXPECT_GT(cases, 24u);
  }
}

TEST(PropertyCases, TheLevelsCountAndTheSeedFixesThem) {
  QuantizeConfig config;
  config.output = OutputDtype::kFloat4E2m1fnX4;
  config.fp4_lane_stride = 4;
  std::vector<CampaignCase> first, again, other;
  for_each_property_case(config, Level::kGate, 7, [&](const CampaignCase& c) { first.push_back(c); });
  for_each_property_case(config, Level::kGate, 7, [&](const CampaignCase& c) { again.push_back(c); });
  for_each_property_case(config, Level::kGate, 8, [&](const CampaignCase& c) { other.push_back(c); });
  ASSERT_EQ(first.size(), 24u);
  ASSERT_EQ(again.size(), 24u);
  bool seed_matters = false;
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].id, "case-" + std::to_string(i));
    EXPECT_EQ(first[i].campaign, "properties");
    EXPECT_EQ(first[i].input, again[i].input);
    EXPECT_EQ(first[i].expected_data, again[i].expected_data);
    seed_matters |= first[i].input != other[i].input;
    const Geometry g = geometry(first[i].config);
    EXPECT_EQ(first[i].input.size(), first[i].config.partitions * first[i].config.free);
    EXPECT_EQ(first[i].expected_data.size(), g.data_bytes);
    EXPECT_EQ(first[i].expected_scale.size(), g.scale_bytes);
  }
  EXPECT_TRUE(seed_matters);
}

TEST(ExhaustiveCases, TheGateSamplesAtMostTenE8m0Values) {
  QuantizeConfig config;
  config.output = OutputDtype::kFloat8E5m2;
  std::set<std::string> e8m0;
  std::size_t cases = 0;
  for_each_exhaustive_case(config, Level::kGate, [&](const CampaignCase& c) {
    ++cases;
    EXPECT_EQ(c.campaign, "exhaustive");
    EXPECT_EQ(c.id.rfind("e8m0-", 0), 0u);
    e8m0.insert(c.id.substr(0, c.id.find('-', 5)));
    EXPECT_EQ(c.expected_data.size(), geometry(c.config).data_bytes);
  });
  EXPECT_GT(cases, 0u);
  EXPECT_LE(e8m0.size(), 10u);
  EXPECT_EQ(e8m0.count("e8m0-1"), 1u);  // the clamp is always sampled
}

TEST(Levels, NamesRoundTripAndUnknownOnesAreRefused) {
  for (Level level : {Level::kGate, Level::kNightly, Level::kSoak}) EXPECT_EQ(parse_level(name(level)), level);
  EXPECT_THROW(parse_level("weekly"), Error);
}

}  // namespace
}  // namespace mxconform::certify
