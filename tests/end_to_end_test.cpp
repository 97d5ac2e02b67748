// Dequantize through every implementation, on hand-derived values: the codes' values times the
// E8M0's power of two, rounded to float32. (The quantize direction of whole blocks lives in the
// corpus, corpus/cases/*.yaml, with each block's hand derivation; corpus_replay_test runs it on
// every implementation.)
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mxconform/registry.h"

namespace mxconform {
namespace {

using Bytes = std::vector<std::uint8_t>;

class EndToEnd : public ::testing::TestWithParam<const Subject*> {};

TEST_P(EndToEnd, DequantizeHandValues) {
  // e4m3, P = 8, F = 8, logical scales [127, 1]. Row 0: block 0 codes 0x7E 0xFE 0x7F 0x01, block 1
  // codes 0x01 0x7E 0x80 0x38.
  QuantizeConfig config;
  config.partitions = 8;
  config.free = 8;
  config.output = OutputDtype::kFloat8E4m3fn;
  config.scale_layout = ScaleLayout::kLogical;
  Bytes data(64, 0x00);
  const Bytes row0 = {0x7E, 0xFE, 0x7F, 0x01, 0x01, 0x7E, 0x80, 0x38};
  std::copy(row0.begin(), row0.end(), data.begin());
  const Bytes scale = {127, 1};
  std::vector<float> out(64, 1.0f);
  GetParam()->dequantize(config, data.data(), scale.data(), out.data());
  EXPECT_EQ(out[0], 448.0f);
  EXPECT_EQ(out[1], -448.0f);
  EXPECT_TRUE(std::isnan(out[2]));
  EXPECT_EQ(out[3], std::ldexp(1.0f, -9));
  EXPECT_EQ(out[4], std::ldexp(1.0f, -135));  // an fp32 subnormal, exact
  EXPECT_EQ(out[5], std::ldexp(7.0f, -120));
  EXPECT_EQ(out[6], 0.0f);
  EXPECT_TRUE(std::signbit(out[6]));
  EXPECT_EQ(out[7], std::ldexp(1.0f, -126));
  EXPECT_EQ(out[8], 0.0f);

  // e5m2 specials.
  config.output = OutputDtype::kFloat8E5m2;
  data.assign(64, 0x00);
  data[0] = 0x7C;
  data[1] = 0xFC;
  data[2] = 0x7D;
  GetParam()->dequantize(config, data.data(), scale.data(), out.data());
  EXPECT_EQ(out[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(out[1], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(out[2]));

  // FP4 with E8M0 254: 6 * 2^127 overflows fp32 to Inf; 0.5 * 2^127 = 2^126.
  config.output = OutputDtype::kFloat4E2m1fnX4;
  data.assign(32, 0x00);
  data[0] = 0x17;  // element 0: code 7, element 1: code 1
  data[1] = 0x09;  // element 2: code 9 (-0.5)
  const Bytes fp4_scale = {254, 254};
  GetParam()->dequantize(config, data.data(), fp4_scale.data(), out.data());
  EXPECT_EQ(out[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(out[1], std::ldexp(1.0f, 126));
  EXPECT_EQ(out[2], -std::ldexp(1.0f, 126));
}

TEST_P(EndToEnd, DequantizeGivesEveryFp4CodesValueAtScaleOne) {
  // FP4, P = 8, F = 4, E8M0 127 (scale 1): element k holds code k % 16 (element 2b in the low
  // nibble of byte b, 2b + 1 in the high, parity 1), whose values are 0 0.5 1 1.5 2 3 4 6 and
  // their negatives (code 8 is -0).
  QuantizeConfig config;
  config.partitions = 8;
  config.free = 4;
  config.output = OutputDtype::kFloat4E2m1fnX4;
  const Bytes ramp = {0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE};
  Bytes data = ramp;
  data.insert(data.end(), ramp.begin(), ramp.end());
  const Bytes scale = {127};
  const float grid[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  std::vector<float> out(32, 1.0f);
  GetParam()->dequantize(config, data.data(), scale.data(), out.data());
  for (int k = 0; k < 32; ++k) {
    const int code = k % 16;
    EXPECT_EQ(out[k], code >= 8 ? -grid[code - 8] : grid[code]) << k;
    EXPECT_EQ(std::signbit(out[k]), code >= 8) << k;
  }
}

std::string implementation_name(const ::testing::TestParamInfo<const Subject*>& info) {
  return std::string(info.param->name());
}

std::vector<const Subject*> runnable_implementations() {
  std::vector<const Subject*> out;
  for (const Subject* impl : built_in_subjects()) {
    if (runnable_here(*impl)) out.push_back(impl);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(EveryImplementation, EndToEnd, ::testing::ValuesIn(runnable_implementations()),
                         implementation_name);

}  // namespace
}  // namespace mxconform
