// docs/contract.md step 6: the FP4 lane remap, its involution, and impl's pack/unpack. Expected
// tables are written out by hand from the seed's formula.
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "fp4_pack.h"
#include "mxconform/lane_remap.h"
#include "oracle.h"

namespace mxconform {
namespace {

std::vector<std::size_t> remap_table(std::size_t stride, std::size_t n) {
  std::vector<std::size_t> table;
  for (std::size_t k = 0; k < n; ++k) table.push_back(lane_remap(k, stride));
  return table;
}

TEST(LaneRemap, HandTables) {
  EXPECT_EQ(remap_table(1, 8), (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(remap_table(2, 8), (std::vector<std::size_t>{2, 3, 0, 1, 6, 7, 4, 5}));
  EXPECT_EQ(remap_table(4, 16), (std::vector<std::size_t>{6, 7, 4, 5, 2, 3, 0, 1, 14, 15, 12, 13, 10, 11, 8, 9}));
  EXPECT_EQ(remap_table(8, 16), (std::vector<std::size_t>{14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1}));
}

TEST(LaneRemap, OracleFormulationAgrees) {
  for (std::size_t stride = 1; stride <= 64; ++stride) {
    for (std::size_t k = 0; k < 8 * stride; ++k) {
      ASSERT_EQ(oracle::nibble_position(k, stride), lane_remap(k, stride)) << "stride " << stride << " k " << k;
    }
  }
  EXPECT_EQ(oracle::nibble_position(5, 0), 5u);
}

TEST(LaneRemap, IsAnInvolutionAndAPermutation) {
  for (std::size_t stride = 1; stride <= 64; ++stride) {
    const std::size_t n = 2 * stride * 8;
    std::vector<int> hits(n, 0);
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t r = lane_remap(k, stride);
      ASSERT_LT(r, n);
      ++hits[r];
      ASSERT_EQ(lane_remap(r, stride), k) << "stride " << stride << " k " << k;
    }
    for (int h : hits) ASSERT_EQ(h, 1);
  }
}

TEST(Fp4Pack, HandPackedBytes) {
  const std::uint8_t codes[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  std::uint8_t out[4];
  impl::pack_fp4(codes, 8, 0, 1, out);  // element 0 in the low nibble
  EXPECT_EQ(std::vector<std::uint8_t>(out, out + 4), (std::vector<std::uint8_t>{0x10, 0x32, 0x54, 0x76}));
  impl::pack_fp4(codes, 8, 0, 0, out);  // element 0 in the high nibble
  EXPECT_EQ(std::vector<std::uint8_t>(out, out + 4), (std::vector<std::uint8_t>{0x01, 0x23, 0x45, 0x67}));
  impl::pack_fp4(codes, 8, 2, 1, out);  // positions 0..7 hold elements 2 3 0 1 6 7 4 5
  EXPECT_EQ(std::vector<std::uint8_t>(out, out + 4), (std::vector<std::uint8_t>{0x32, 0x10, 0x76, 0x54}));
  impl::pack_fp4(codes, 8, 2, 0, out);
  EXPECT_EQ(std::vector<std::uint8_t>(out, out + 4), (std::vector<std::uint8_t>{0x23, 0x01, 0x67, 0x45}));
}

TEST(Fp4Pack, UnpackInvertsPackForEveryStrideAndParity) {
  const std::size_t n = 256;
  std::vector<std::uint8_t> codes(n), packed(n / 2), back(n);
  for (std::size_t k = 0; k < n; ++k) codes[k] = static_cast<std::uint8_t>((k * 7 + k / 16) % 16);
  for (std::uint32_t stride : {0u, 1u, 2u, 4u, 8u, 16u, 64u, 128u}) {
    for (int parity : {0, 1}) {
      impl::pack_fp4(codes.data(), n, stride, parity, packed.data());
      impl::unpack_fp4(packed.data(), n, stride, parity, back.data());
      EXPECT_EQ(codes, back) << "stride " << stride << " parity " << parity;
    }
  }
}

}  // namespace
}  // namespace mxconform
