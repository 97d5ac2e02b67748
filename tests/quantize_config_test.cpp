// Configuration validation and the derived geometry, including the x4 container counts.
#include <gtest/gtest.h>

#include "mxconform/error.h"
#include "mxconform/quantize_config.h"

namespace mxconform {
namespace {

QuantizeConfig make(std::size_t p, std::size_t f, OutputDtype out = OutputDtype::kFloat8E4m3fn) {
  QuantizeConfig config;
  config.partitions = p;
  config.free = f;
  config.output = out;
  return config;
}

std::string error_of(const QuantizeConfig& config) {
  try {
    validate(config);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(QuantizeConfig, DefaultsAreThoseOfDecisionsMd) {
  const QuantizeConfig config;
  EXPECT_EQ(config.emax_mode, EmaxMode::kEmax);
  EXPECT_EQ(config.fp8_nan, Fp8NanPolicy::kCanonical);
  EXPECT_EQ(config.fp4_lane_stride, 0u);
  EXPECT_EQ(config.fp4_high_parity, 1);
  EXPECT_EQ(config.scale_layout, ScaleLayout::kPhysical);
}

TEST(QuantizeConfig, ShapeRulesAreNamed) {
  EXPECT_NE(error_of(make(12, 4)).find("P must be a multiple of 8"), std::string::npos);
  EXPECT_NE(error_of(make(8, 6)).find("F must be a multiple of 4"), std::string::npos);
  EXPECT_NE(error_of(make(0, 4)).find("must be positive"), std::string::npos);
  EXPECT_EQ(error_of(make(24, 4)), "");   // any multiple of 8, not only of 32
  EXPECT_EQ(error_of(make(136, 4)), "");  // above the hardware tile's 128 is accepted
}

TEST(QuantizeConfig, LaneStrideMustDivideTheTensor) {
  QuantizeConfig config = make(8, 4, OutputDtype::kFloat4E2m1fnX4);  // 32 elements
  config.fp4_lane_stride = 16;
  EXPECT_EQ(error_of(config), "");  // 32 % 32 == 0
  config.fp4_lane_stride = 32;
  EXPECT_NE(error_of(config).find("(P*F) % (2*stride) == 0"), std::string::npos);
  config.fp4_lane_stride = 3;
  EXPECT_NE(error_of(config).find("32 % 6 = 2"), std::string::npos);
  config.output = OutputDtype::kFloat8E5m2;  // FP8 ignores the lane stride
  EXPECT_EQ(error_of(config), "");
}

TEST(QuantizeConfig, ParityIsZeroOrOne) {
  QuantizeConfig config = make(8, 4, OutputDtype::kFloat4E2m1fnX4);
  config.fp4_high_parity = 2;
  EXPECT_NE(error_of(config).find("must be 0 or 1"), std::string::npos);
}

TEST(QuantizeConfig, X4ContainerCounts) {
  // P=8, F=16: 128 elements.
  const Geometry fp4 = geometry(make(8, 16, OutputDtype::kFloat4E2m1fnX4));
  EXPECT_EQ(fp4.containers_per_row, 4u);   // F/4 containers of 4 nibbles
  EXPECT_EQ(fp4.data_row_bytes, 8u);       // 2 bytes per container
  EXPECT_EQ(fp4.data_bytes, 64u);
  const Geometry e4m3_x4 = geometry(make(8, 16, OutputDtype::kFloat8E4m3fnX4));
  EXPECT_EQ(e4m3_x4.containers_per_row, 4u);
  EXPECT_EQ(e4m3_x4.data_bytes, 128u);     // same bytes as the non-x4 dtype
  const Geometry e5m2_x4 = geometry(make(8, 16, OutputDtype::kFloat8E5m2X4));
  EXPECT_EQ(e5m2_x4.containers_per_row, 4u);
  EXPECT_EQ(e5m2_x4.data_bytes, 128u);
  const Geometry e4m3 = geometry(make(8, 16, OutputDtype::kFloat8E4m3fn));
  EXPECT_EQ(e4m3.containers_per_row, 16u);
  EXPECT_EQ(e4m3.data_bytes, 128u);
}

// A 32x1 block allows any F, but an x4 dtype holds 4 elements of a row per container (the
// contract's output dtypes): F = 1 would be a quarter container, and an FP4 row half a byte.
TEST(QuantizeConfig, X4DtypesNeedWholeContainersInEveryBlockShape) {
  QuantizeConfig config = make(32, 1, OutputDtype::kFloat4E2m1fnX4);
  apply_profile(config, ProfileId::kMicroxcaling);
  config.block_shape = BlockShape::k32x1;
  EXPECT_NE(error_of(config).find("F must be a multiple of 4"), std::string::npos);
  config.output = OutputDtype::kFloat8E4m3fnX4;
  EXPECT_NE(error_of(config).find("F must be a multiple of 4"), std::string::npos);
  config.output = OutputDtype::kFloat8E4m3fn;  // one element per container: F = 1 is whole
  EXPECT_EQ(error_of(config), "");
  config.output = OutputDtype::kFloat4E2m1fnX4;
  config.free = 4;  // four 32x1 blocks, two bytes per row
  EXPECT_EQ(error_of(config), "");
  EXPECT_EQ(geometry(config).data_row_bytes, 2u);
}

TEST(QuantizeConfig, ScaleGeometryInBothLayouts) {
  QuantizeConfig config = make(128, 64);
  Geometry g = geometry(config);
  EXPECT_EQ(g.block_rows, 16u);
  EXPECT_EQ(g.block_cols, 16u);
  EXPECT_EQ(g.scale_rows, 100u);  // slot(15) + 1 = 3 + 32*3 + 1
  EXPECT_EQ(g.scale_bytes, 1600u);
  config.scale_layout = ScaleLayout::kLogical;
  g = geometry(config);
  EXPECT_EQ(g.scale_rows, 16u);
  EXPECT_EQ(geometry(make(8, 4)).scale_rows, 1u);
  EXPECT_EQ(geometry(make(40, 4)).scale_rows, 33u);  // groups 0..4: slot(4) = 32
}

TEST(QuantizeConfig, EmaxBiasPerModeAndDtype) {
  QuantizeConfig config = make(8, 4);
  const std::pair<OutputDtype, int> emax[] = {{OutputDtype::kFloat4E2m1fnX4, 2}, {OutputDtype::kFloat8E4m3fn, 8},
                                              {OutputDtype::kFloat8E5m2, 15}, {OutputDtype::kFloat8E4m3fnX4, 8},
                                              {OutputDtype::kFloat8E5m2X4, 15}};
  for (const auto& [dtype, value] : emax) {
    config.output = dtype;
    config.emax_mode = EmaxMode::kEmax;
    EXPECT_EQ(emax_bias(config), value);
    config.emax_mode = EmaxMode::kEmaxMinus1;
    EXPECT_EQ(emax_bias(config), value - 1);
  }
}

TEST(QuantizeConfig, DescribeNamesEveryKnob) {
  const std::string text = describe(make(8, 4));
  for (const char* key : {"input=", "output=", "shape=", "emax_mode=", "fp8_nan=", "lane_stride=", "high_parity=",
                          "scale_layout="}) {
    EXPECT_NE(text.find(key), std::string::npos) << key;
  }
}

}  // namespace
}  // namespace mxconform
