// The oracle's profile rules on their own (oracle/profile_quantize.h); the corpus under
// corpus/cases/profiles pins whole cases. Expected values are torchao's and TransformerEngine's
// published boundary patterns and hand derivations, never the code under test.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "mxconform/error.h"
#include "mxconform/profile.h"
#include "profile_quantize.h"

namespace mxconform::oracle {
namespace {

// torchao/testing/_mxfp8_test_utils.py, make_f32_to_e8m0_rceil_cases: fp32 bits -> E8M0 (no satfinite).
const std::vector<std::pair<std::uint32_t, int>> kTorchaoRceilBoundaries = {
    {0x0000'0000, 0},   {0x0000'0001, 0},   {0x0040'0000, 0},   {0x0040'0001, 1},   {0x007F'FFFF, 1},
    {0x0080'0000, 1},   {0x1F80'0000, 63},  {0x1F80'0001, 64},  {0x3F7F'FFFF, 127}, {0x3F80'0000, 127},
    {0x3F80'0001, 128}, {0x5F80'0000, 191}, {0x5F80'0001, 192}, {0x7F00'0000, 254}, {0x7F00'0001, 255},
    {0x7F7F'FFFF, 255}, {0x7F80'0000, 255}, {0x7FC0'0000, 255},
};

TEST(ProfileOracle, RceilMatchesTorchaoBoundaryPatterns) {
  for (const auto& [bits, expected] : kTorchaoRceilBoundaries) {
    EXPECT_EQ(rceil_e8m0(bits, false), expected) << std::hex << bits;
  }
}

// TransformerEngine's float_to_e8m0: satfinite keeps 0xFE for finite values past 2^127 and Inf,
// NaN stays 0xFF; below that it is the same round-up.
TEST(ProfileOracle, RceilSatfiniteStopsAt0xFE) {
  EXPECT_EQ(rceil_e8m0(0x7F00'0001, true), 0xFE);
  EXPECT_EQ(rceil_e8m0(0x7F7F'FFFF, true), 0xFE);
  EXPECT_EQ(rceil_e8m0(0x7F80'0000, true), 0xFE);
  EXPECT_EQ(rceil_e8m0(0x7FC0'0000, true), 0xFF);
  EXPECT_EQ(rceil_e8m0(0x3F80'0001, true), 128);
  EXPECT_EQ(rceil_e8m0(0x0040'0001, true), 1);
}

Value finite(double magnitude, bool negative = false) {
  Value v;
  v.negative = negative;
  v.magnitude = Rational(static_cast<long long>(magnitude * 65536)) / 65536;
  return v;
}

// The FP4 ties of profiles.md D2: 0.25 0.75 1.25 1.75 2.5 3.5 5 at scale 2^0.
TEST(ProfileOracle, Fp4TiesUnderEachRounding) {
  const std::vector<double> ties = {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5};
  const std::vector<std::uint32_t> even = {0, 2, 2, 4, 4, 6, 6};
  const std::vector<std::uint32_t> toward_zero = {0, 1, 2, 3, 4, 5, 6};
  const std::vector<std::uint32_t> away = {1, 2, 3, 4, 5, 6, 7};
  for (std::size_t i = 0; i < ties.size(); ++i) {
    const Value y = finite(ties[i]);
    EXPECT_EQ(narrow_with(y, ElementKind::kFp4E2m1, ElementRounding::kNearestEven, Overflow::kSaturate), even[i]);
    EXPECT_EQ(narrow_with(y, ElementKind::kFp4E2m1, ElementRounding::kTiesTowardZero, Overflow::kSaturate), toward_zero[i]);
    EXPECT_EQ(narrow_with(y, ElementKind::kFp4E2m1, ElementRounding::kTiesAway, Overflow::kSaturate), away[i]);
  }
}

// D3: 480 after a FLOOR scale of 1: saturate 0x7E, non-saturating e4m3fn NaN 0x7F; e5m2 61440:
// 0x7B or Inf 0x7C. 464 is the tie between 448 and the first value past it: even keeps 448.
TEST(ProfileOracle, OverflowSaturatesOrNot) {
  EXPECT_EQ(narrow_with(finite(480), ElementKind::kFp8E4m3fn, ElementRounding::kNearestEven, Overflow::kSaturate), 0x7Eu);
  EXPECT_EQ(narrow_with(finite(480), ElementKind::kFp8E4m3fn, ElementRounding::kNearestEven, Overflow::kNonSaturating), 0x7Fu);
  EXPECT_EQ(narrow_with(finite(464), ElementKind::kFp8E4m3fn, ElementRounding::kNearestEven, Overflow::kNonSaturating), 0x7Eu);
  EXPECT_EQ(narrow_with(finite(61440), ElementKind::kFp8E5m2, ElementRounding::kNearestEven, Overflow::kSaturate), 0x7Bu);
  EXPECT_EQ(narrow_with(finite(61440), ElementKind::kFp8E5m2, ElementRounding::kNearestEven, Overflow::kNonSaturating), 0x7Cu);
  EXPECT_EQ(narrow_with(finite(1.0625, true), ElementKind::kFp8E4m3fn, ElementRounding::kTiesAway, Overflow::kSaturate), 0xB9u);
}

TEST(ProfileOracle, ProfilesValidateTheirKnobs) {
  QuantizeConfig config;
  config.partitions = 1;
  config.free = 32;
  apply_profile(config, ProfileId::kOcpFloor);
  EXPECT_NO_THROW(validate(config));
  EXPECT_EQ(config.block_shape, BlockShape::k1x32);
  EXPECT_EQ(config.scale_layout, ScaleLayout::kLogical);
  config.emax_mode = EmaxMode::kEmaxMinus1;
  EXPECT_THROW(validate(config), Error);
  apply_profile(config, ProfileId::kTransformerEngineMxfp8);
  config.output = OutputDtype::kFloat4E2m1fnX4;
  EXPECT_THROW(validate(config), Error);  // FP8 only
  QuantizeConfig neuron;
  neuron.partitions = 1;
  neuron.free = 32;
  EXPECT_THROW(validate(neuron), Error);  // 8 x 4 blocks need P % 8 == 0
  EXPECT_EQ(describe(neuron).find("profile"), std::string::npos);  // neuron reports read as before
  EXPECT_THROW(parse_profile("torchao"), Error);
}

// FP4 data is P*F/2 bytes: dequantize reads each element's nibble and nothing past the buffer
// (an exact-size vector: AddressSanitizer reports any read beyond it). ocp-floor packs element
// 2j in byte j's low nibble and 2j+1 in its high one; e2m1 codes 0-7 are 0, 0.5, 1, 1.5, 2, 3, 4, 6
// (OCP MX v1.0 table), scaled by 2^(128 - 127) = 2.
TEST(ProfileOracle, Fp4DequantizeReadsOnlyItsNibbles) {
  QuantizeConfig config;
  config.output = OutputDtype::kFloat4E2m1fnX4;
  apply_profile(config, ProfileId::kOcpFloor);
  config.partitions = 1;
  config.free = 32;
  std::vector<std::uint8_t> data(16);
  for (std::size_t j = 0; j < data.size(); ++j) data[j] = static_cast<std::uint8_t>(j % 8 | (7 - j % 8) << 4);
  const std::vector<std::uint8_t> scale(1, 128);
  std::vector<float> output(32);
  dequantize_profile(config, data.data(), scale.data(), output.data());
  const float e2m1[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (std::size_t j = 0; j < data.size(); ++j) {
    EXPECT_EQ(output[2 * j], 2 * e2m1[j % 8]) << "element " << 2 * j;
    EXPECT_EQ(output[2 * j + 1], 2 * e2m1[7 - j % 8]) << "element " << 2 * j + 1;
  }
}

}  // namespace
}  // namespace mxconform::oracle
