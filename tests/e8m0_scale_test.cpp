// docs/contract.md steps 2-4: the exponent measure, the E8M0 rule with its two clamps, and the
// multiplier, for the oracle (from exact values) and impl (from bits).
#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "e8m0_scale.h"
#include "oracle.h"

namespace mxconform {
namespace {

oracle::Value fp32_value(std::uint32_t bits) { return oracle::decode(Float32::info(), bits); }

QuantizeConfig config_for(OutputDtype out, EmaxMode mode = EmaxMode::kEmax) {
  QuantizeConfig config;
  config.partitions = 8;
  config.free = 4;
  config.output = out;
  config.emax_mode = mode;
  return config;
}

void expect_e8m0(int max_field, OutputDtype out, EmaxMode mode, int expected) {
  const QuantizeConfig config = config_for(out, mode);
  EXPECT_EQ(oracle::block_e8m0(max_field, config), expected) << "oracle, field " << max_field;
  EXPECT_EQ(static_cast<int>(impl::e8m0_from_max_field(max_field, emax_bias(config))), expected)
      << "impl, field " << max_field;
}

TEST(ExponentField, IsTheSignFreeFp32FieldNotIlogb) {
  const std::pair<std::uint32_t, int> cases[] = {
      {0x3F80'0000u, 127},  // 1.0
      {0xBF80'0000u, 127},  // -1.0: the sign bit does not reach the field
      {0xC100'0000u, 130},  // -8.0
      {0x0040'0000u, 0},    // fp32 denormal 2^-127: field 0, where ilogb would say -127
      {0x8000'0001u, 0},    // -smallest denormal
      {0x0000'0000u, 0},    // zero, where ilogb is FP_ILOGB0
      {0x0080'0000u, 1},    // smallest normal
      {0x7F80'0000u, 255},  // Inf
      {0xFFC0'0000u, 255},  // -NaN
      {0x7F7F'FFFFu, 254},  // largest finite
  };
  for (const auto& [bits, field] : cases) {
    EXPECT_EQ(static_cast<int>(impl::exponent_field(bits)), field) << std::hex << bits;
    EXPECT_EQ(oracle::fp32_exponent_field(fp32_value(bits)), field) << std::hex << bits;
  }
}

TEST(E8m0, DefaultModeFollowsTheFormula) {
  expect_e8m0(129, OutputDtype::kFloat4E2m1fnX4, EmaxMode::kEmax, 127);  // max in [4, 8): no scaling
  expect_e8m0(127, OutputDtype::kFloat8E4m3fn, EmaxMode::kEmax, 119);
  expect_e8m0(127, OutputDtype::kFloat8E5m2, EmaxMode::kEmax, 112);
  expect_e8m0(255, OutputDtype::kFloat8E4m3fnX4, EmaxMode::kEmax, 247);  // Inf/NaN block
  expect_e8m0(255, OutputDtype::kFloat8E5m2X4, EmaxMode::kEmax, 240);
  expect_e8m0(255, OutputDtype::kFloat4E2m1fnX4, EmaxMode::kEmax, 253);
}

TEST(E8m0, AlternativeModeIsOneLarger) {
  expect_e8m0(129, OutputDtype::kFloat4E2m1fnX4, EmaxMode::kEmaxMinus1, 128);
  expect_e8m0(127, OutputDtype::kFloat8E4m3fn, EmaxMode::kEmaxMinus1, 120);
  expect_e8m0(127, OutputDtype::kFloat8E5m2, EmaxMode::kEmaxMinus1, 113);
  expect_e8m0(255, OutputDtype::kFloat4E2m1fnX4, EmaxMode::kEmaxMinus1, 254);  // the 254 edge
}

TEST(E8m0, ClampLowThenZeroFloor) {
  // CLAMP-LOW: a negative difference becomes 0 (not a wrapped byte such as 242), then ZERO-FLOOR
  // makes it 1 (not 0).
  expect_e8m0(1, OutputDtype::kFloat8E5m2, EmaxMode::kEmax, 1);
  expect_e8m0(7, OutputDtype::kFloat8E4m3fn, EmaxMode::kEmax, 1);
  expect_e8m0(0, OutputDtype::kFloat4E2m1fnX4, EmaxMode::kEmaxMinus1, 1);
  // ZERO-FLOOR alone: the difference is exactly 0.
  expect_e8m0(15, OutputDtype::kFloat8E5m2, EmaxMode::kEmax, 1);
  expect_e8m0(8, OutputDtype::kFloat8E4m3fn, EmaxMode::kEmax, 1);
  expect_e8m0(2, OutputDtype::kFloat4E2m1fnX4, EmaxMode::kEmax, 1);
  // One above: the first byte the formula gives unclamped.
  expect_e8m0(17, OutputDtype::kFloat8E5m2, EmaxMode::kEmax, 2);
}

TEST(Multiplier, FromTheSeedsBitConstruction) {
  const std::pair<int, int> exponent_of[] = {{1, 126}, {127, 0}, {253, -126}, {200, -73}};
  for (const auto& [e8m0, exponent] : exponent_of) {
    const oracle::Value m = oracle::multiplier(e8m0);
    EXPECT_TRUE(m.is_finite());
    EXPECT_FALSE(m.negative);
    EXPECT_EQ(m.magnitude.convert_to<double>(), std::ldexp(1.0, exponent)) << "oracle, e8m0 " << e8m0;
    float value;
    const std::uint32_t bits = impl::multiplier_bits(e8m0);
    std::memcpy(&value, &bits, sizeof value);
    EXPECT_EQ(value, std::ldexp(1.0f, exponent)) << "impl, e8m0 " << e8m0;
  }
  EXPECT_EQ(impl::multiplier_bits(1), 0x7E80'0000u);
  EXPECT_EQ(impl::multiplier_bits(127), 0x3F80'0000u);
  EXPECT_EQ(impl::multiplier_bits(253), 0x0080'0000u);  // the smallest normal, never a denormal
}

TEST(Multiplier, E8m0Of254GivesPositiveZero) {
  const oracle::Value m = oracle::multiplier(254);
  EXPECT_TRUE(m.is_finite());
  EXPECT_EQ(m.magnitude, 0);
  EXPECT_FALSE(m.negative);
  EXPECT_EQ(impl::multiplier_bits(254), 0u);
}

TEST(Prescale, OracleFollowsX86ForSpecials) {
  const oracle::Value zero = oracle::multiplier(254);
  const oracle::Value inf = fp32_value(0x7F80'0000u);
  const oracle::Value y = oracle::prescale(inf, zero);
  EXPECT_TRUE(y.is_nan());
  EXPECT_TRUE(y.negative);  // the x86 default NaN 0xFFC00000
  const oracle::Value negative_one = fp32_value(0xBF80'0000u);
  const oracle::Value z = oracle::prescale(negative_one, zero);
  EXPECT_TRUE(z.is_finite());
  EXPECT_EQ(z.magnitude, 0);
  EXPECT_TRUE(z.negative);
  const oracle::Value nan = oracle::prescale(fp32_value(0xFFC0'0001u), oracle::multiplier(127));
  EXPECT_TRUE(nan.is_nan());
  EXPECT_TRUE(nan.negative);
}

TEST(Prescale, OracleRoundsToFp32WithSubnormals) {
  // 3 * 2^-150 is halfway between 2^-149 and 2^-148 (the fp32 subnormals 1 and 2): even is 2.
  const oracle::Value x = oracle::decode(Bfloat16::info(), 0x3FC0);  // 1.5
  const oracle::Value m = oracle::multiplier(253);                    // 2^-126
  EXPECT_EQ(oracle::prescale(x, m).magnitude.convert_to<double>(), 1.5 * std::ldexp(1.0, -126));
  const oracle::Value tiny = oracle::round_to_ieee(false, oracle::Rational(3) / (oracle::Rational(1) * std::ldexp(1.0, 150)),
                                                   Float32::info());
  EXPECT_EQ(tiny.magnitude.convert_to<double>(), std::ldexp(1.0, -148));
  const oracle::Value below = oracle::round_to_ieee(false, oracle::Rational(1) / oracle::Rational(std::ldexp(1.0, 150)),
                                                    Float32::info());
  EXPECT_EQ(below.magnitude, 0);  // half the smallest subnormal: tie to even zero
}

}  // namespace
}  // namespace mxconform
