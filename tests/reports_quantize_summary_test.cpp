// reports/quantize_summary.h: the counts of the summary on a tensor derived by hand.
#include "quantize_summary.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "mxconform/registry.h"

namespace mxconform::reports {
namespace {

// bfloat16 -> e4m3fn, [8, 8]: two blocks. Block 0 holds 2^20 (field 147), 1.875 * 2^20 and 2^-20:
// E8M0 147 - 8 = 139, multiplier 2^-12; 2^20 -> 256, 1.875 * 2^20 -> 480, above 448: saturated;
// 2^-20 -> 2^-32, below e4m3fn's smallest subnormal: flushed. Block 1 holds a NaN and zeros:
// field 255, E8M0 247.
TEST(QuantizeSummary, CountsSaturatedFlushedAndNanAndTheE8m0Range) {
  QuantizeConfig config;
  config.output = OutputDtype::kFloat8E4m3fn;
  config.partitions = 8;
  config.free = 8;
  std::vector<std::uint16_t> input(64, 0);
  input[0] = 0x4980;       // 2^20
  input[1] = 0x49F0;       // 1.875 * 2^20
  input[8 + 2] = 0x3580;   // 2^-20 (row 1, column 2: block 0)
  input[3 * 8 + 5] = 0x7FC0;  // NaN (row 3, column 5: block 1)
  const Geometry g = geometry(config);
  std::vector<std::uint8_t> data(g.data_bytes), scale(g.scale_bytes);
  find_built_in("oracle")->quantize(config, input.data(), data.data(), scale.data());
  const QuantizeSummary s = summarize(config, input.data(), data.data(), scale.data());
  EXPECT_EQ(s.elements, 64u);
  EXPECT_EQ(s.saturated, 1u);
  EXPECT_EQ(s.flushed, 1u);
  EXPECT_EQ(s.nan, 1u);
  EXPECT_EQ(s.inf, 0u);
  EXPECT_EQ(s.scale_min, 139);
  EXPECT_EQ(s.scale_max, 247);
}

}  // namespace
}  // namespace mxconform::reports
