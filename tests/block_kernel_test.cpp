// impl/block_kernel.cpp: quantize_blocks on blocks derived by hand from docs/contract.md steps
// 1-5, with a block range that starts past the first block, a code stride wider than the range,
// and guard bytes around what it may write.
#include "block_kernel.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace mxconform::impl {
namespace {

constexpr std::uint8_t kGuard = 0xA5;
constexpr std::uint16_t kBf16One = 0x3F80, kBf16Two = 0x4000, kBf16QuietNan = 0x7FC0;

QuantizeConfig config_of(OutputDtype output, std::size_t partitions, std::size_t free) {
  QuantizeConfig config;
  config.input = InputDtype::kBfloat16;
  config.output = output;
  config.partitions = partitions;
  config.free = free;
  return config;
}

// Element (row, col) of partition-major [P, F] input.
void set(std::vector<std::uint16_t>& input, std::size_t free, std::size_t row, std::size_t col, std::uint16_t bits) {
  input[row * free + col] = bits;
}

// e4m3fn, one group of three blocks; the call covers blocks 1 and 2 only.
// Block 0: all 1.0 (not asked for). Block 1: all zero: field 0, E8M0 max(1, max(0, 0 - 8)) = 1.
// Block 2: 2.0 at (3, 9), zeros elsewhere: field 128, E8M0 120, multiplier 2^7, 2.0 -> 256 = 2^8,
// e4m3fn exponent field 8 + 7 = 15, mantissa 0: code 0b0'1111'000.
TEST(BlockKernel, QuantizesOnlyTheBlocksAskedForAtTheirOffsets) {
  const QuantizeConfig config = config_of(OutputDtype::kFloat8E4m3fn, 8, 12);
  std::vector<std::uint16_t> input(8 * 12, 0);
  for (std::size_t r = 0; r < 8; ++r) {
    for (std::size_t c = 0; c < 4; ++c) set(input, 12, r, c, kBf16One);
  }
  set(input, 12, 3, 9, kBf16Two);
  constexpr std::size_t kStride = 10;  // 8 columns asked for, 2 guard bytes a row
  std::vector<std::uint8_t> codes(8 * kStride, kGuard);
  std::uint8_t e8m0[3] = {kGuard, kGuard, kGuard};
  quantize_blocks(config, input.data(), 0, 1, 3, codes.data(), kStride, e8m0);
  EXPECT_EQ(e8m0[0], 1);
  EXPECT_EQ(e8m0[1], 120);
  EXPECT_EQ(e8m0[2], kGuard) << "one E8M0 per block asked for";
  for (std::size_t r = 0; r < 8; ++r) {
    for (std::size_t k = 0; k < kStride; ++k) {
      const std::uint8_t expected = k >= 8 ? kGuard : (r == 3 && k == 9 - 4) ? 0b0'1111'000 : 0;
      EXPECT_EQ(codes[r * kStride + k], expected) << "row " << r << " code " << k;
    }
  }
}

// e4m3fn, the second group of two (rows 8-15), block 0 holds a NaN at (9, 2) and 1.0 elsewhere:
// field 255 wins, E8M0 255 - 8 = 247, multiplier 2^-120; 1.0 * 2^-120 is far below e4m3fn's
// smallest subnormal 2^-9: code 0; the NaN becomes the canonical 0b0'1111'111.
TEST(BlockKernel, ANanTakesTheBlocksScaleAndFlushesTheRest) {
  const QuantizeConfig config = config_of(OutputDtype::kFloat8E4m3fn, 16, 4);
  std::vector<std::uint16_t> input(16 * 4, kBf16One);
  set(input, 4, 9, 2, kBf16QuietNan);
  std::vector<std::uint8_t> codes(8 * 4, kGuard);
  std::uint8_t e8m0 = kGuard;
  quantize_blocks(config, input.data(), 1, 0, 1, codes.data(), 4, &e8m0);
  EXPECT_EQ(e8m0, 247);
  for (std::size_t r = 0; r < 8; ++r) {
    for (std::size_t c = 0; c < 4; ++c) {
      EXPECT_EQ(codes[r * 4 + c], r == 1 && c == 2 ? 0b0'1111'111 : 0) << "row " << r << " col " << c;
    }
  }
}

// FP4 e2m1, one block: 6.0 (field 129) gives E8M0 129 - 2 = 127, multiplier 1. 6.0 -> 0b0'11'1;
// 0.25, halfway between 0 and 0.5, ties to the even code 0; 0.75, between 0.5 (0b001) and 1.0
// (0b010), ties to 0b010; -1.25, between 1.0 and 1.5 (0b011), ties to 0b010 with the sign bit.
TEST(BlockKernel, Fp4TiesGoToTheEvenCode) {
  const QuantizeConfig config = config_of(OutputDtype::kFloat4E2m1fnX4, 8, 4);
  std::vector<std::uint16_t> input(8 * 4, 0);
  set(input, 4, 0, 0, 0x40C0);  // 6.0
  set(input, 4, 1, 1, 0x3E80);  // 0.25
  set(input, 4, 2, 2, 0x3F40);  // 0.75
  set(input, 4, 7, 3, 0xBFA0);  // -1.25
  std::vector<std::uint8_t> codes(8 * 4, kGuard);
  std::uint8_t e8m0 = kGuard;
  quantize_blocks(config, input.data(), 0, 0, 1, codes.data(), 4, &e8m0);
  EXPECT_EQ(e8m0, 127);
  EXPECT_EQ(codes[0 * 4 + 0], 0b0'11'1);
  EXPECT_EQ(codes[1 * 4 + 1], 0b0'00'0);
  EXPECT_EQ(codes[2 * 4 + 2], 0b0'01'0);
  EXPECT_EQ(codes[7 * 4 + 3], 0b1'01'0);
  EXPECT_EQ(codes[3 * 4 + 0], 0) << "a zero";
}

}  // namespace
}  // namespace mxconform::impl
