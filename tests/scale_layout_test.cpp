// docs/contract.md step 7: the slot formula, written out by hand for groups 0..15.
#include <gtest/gtest.h>

#include "mxconform/scale_layout.h"
#include "oracle.h"

namespace mxconform {
namespace {

TEST(ScaleLayout, SlotsOfGroups0To15) {
  const std::size_t expected[16] = {0, 1, 2, 3, 32, 33, 34, 35, 64, 65, 66, 67, 96, 97, 98, 99};
  for (std::size_t i = 0; i < 16; ++i) {
    EXPECT_EQ(scale_slot(i), expected[i]) << "group " << i;
    EXPECT_EQ(oracle::physical_scale_row(i), expected[i]) << "group " << i;
  }
}

TEST(ScaleLayout, PhysicalRowCounts) {
  // P = 8, 16, 24, 32, 40, 64, 128 partitions: P/8 groups.
  EXPECT_EQ(physical_scale_rows(1), 1u);
  EXPECT_EQ(physical_scale_rows(2), 2u);
  EXPECT_EQ(physical_scale_rows(3), 3u);
  EXPECT_EQ(physical_scale_rows(4), 4u);
  EXPECT_EQ(physical_scale_rows(5), 33u);
  EXPECT_EQ(physical_scale_rows(8), 36u);
  EXPECT_EQ(physical_scale_rows(16), 100u);
}

}  // namespace
}  // namespace mxconform
