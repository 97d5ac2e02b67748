// Whole 8x4 blocks through every implementation, with expected bytes derived by hand in the
// comments. Element k of a block is row k / 4, column k % 4 (F = 4, so also flat index k).
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mxconform/registry.h"
#include "mxconform/scale_layout.h"
#include "test_values.h"

namespace mxconform {
namespace {

using test::bf16;
using test::kBf16Inf;
using test::kBf16Nan;
using test::kBf16NegInf;
using test::kBf16NegNan;
using Bytes = std::vector<std::uint8_t>;

constexpr std::uint8_t kSentinel = 0xEE;  // scale rows no slot names must keep it

struct Result {
  Bytes data;
  Bytes scale;
};

class EndToEnd : public ::testing::TestWithParam<const Subject*> {
 protected:
  Result run(const QuantizeConfig& config, const std::vector<std::uint16_t>& input) {
    validate(config);
    const Geometry g = geometry(config);
    EXPECT_EQ(input.size(), config.partitions * config.free);
    Result result{Bytes(g.data_bytes, 0x5A), Bytes(g.scale_bytes, kSentinel)};
    GetParam()->quantize(config, input.data(), result.data.data(), result.scale.data());
    return result;
  }
};

QuantizeConfig block_config(OutputDtype out, EmaxMode mode = EmaxMode::kEmax) {
  QuantizeConfig config;
  config.partitions = 8;
  config.free = 4;
  config.output = out;
  config.emax_mode = mode;
  return config;
}

std::vector<std::uint16_t> bf16_block(std::initializer_list<std::uint16_t> head, std::uint16_t fill) {
  std::vector<std::uint16_t> block(head);
  block.resize(32, fill);
  return block;
}

Bytes bytes_with_tail(std::initializer_list<std::uint8_t> head, std::size_t size, std::uint8_t fill) {
  Bytes out(head);
  out.resize(size, fill);
  return out;
}

// FP4 rounding: the block max is 4.0 (field 129), so E8M0 = 129 - 2 = 127 and M = 1.
const std::vector<std::uint16_t>& fp4_rounding_block() {
  static const std::vector<std::uint16_t> block = {
      bf16(4.0), bf16(0.25), bf16(0.75), bf16(1.25), bf16(1.75), bf16(2.5), bf16(3.5), bf16(5.0),
      bf16(6.5), bf16(7.0), bf16(-0.25), bf16(0.0), bf16(-0.0), bf16(-7.5), bf16(0.0), bf16(-0.0),
      bf16(-6.0), bf16(-4.0), bf16(-3.0), bf16(-2.0), bf16(-1.5), bf16(-1.0), bf16(-0.5), bf16(0.125),
      bf16(0.375), bf16(2.75), bf16(3.25), bf16(4.5), bf16(5.5), bf16(1.125), bf16(0.625), bf16(1.0)};
  return block;
}

TEST_P(EndToEnd, Fp4RoundingBlock) {
  // codes: 6 0 2 2 4 4 6 6 | 7 7 8 0 8 F 0 8 | F E D C B A 9 0 | 1 5 5 6 7 2 1 2
  // (ties 0.25->0, 0.75->1.0, 1.25->1.0, 1.75->2, 2.5->2, 3.5->4, 5->4; 6.5, 7, -7.5 saturate).
  // No NaN here: a NaN would make the block's field 255. Bytes: element 2b in the low nibble, 2b+1 in the high (parity 1).
  const Result r = run(block_config(OutputDtype::kFloat4E2m1fnX4), fp4_rounding_block());
  EXPECT_EQ(r.scale, Bytes{127});
  EXPECT_EQ(r.data, (Bytes{0x06, 0x22, 0x44, 0x66, 0x77, 0x08, 0xF8, 0x80, 0xEF, 0xCD, 0xAB, 0x09, 0x51, 0x65,
                           0x27, 0x21}));
}

TEST_P(EndToEnd, Fp4RoundingBlockEmaxMinus1) {
  // E8M0 = 129 - 1 = 128, M = 0.5. Halved values: 2 .125 .375 .625 .875 1.25 1.75 2.5 | 3.25 3.5
  // -.125 0 -0 -3.75 0 -0 | -3 -2 -1.5 -1 -.75 -.5 -.25 .0625 | .1875 1.375 1.625 2.25 2.75
  // .5625 .3125 .5. codes: 4 0 1 1 2 2 4 4 | 5 6 8 0 8 E 0 8 | D C B A A 9 8 0 | 0 3 3 4 5 1 1 1
  const Result r = run(block_config(OutputDtype::kFloat4E2m1fnX4, EmaxMode::kEmaxMinus1), fp4_rounding_block());
  EXPECT_EQ(r.scale, Bytes{128});
  EXPECT_EQ(r.data, (Bytes{0x04, 0x11, 0x22, 0x44, 0x65, 0x08, 0xE8, 0x80, 0xCD, 0xAB, 0x9A, 0x08, 0x30, 0x43,
                           0x15, 0x11}));
}

// Codes 0..15 twice: element k holds the grid value of code k % 16 (max 6.0, E8M0 127).
std::vector<std::uint16_t> code_ramp_block() {
  const double grid[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  std::vector<std::uint16_t> block;
  for (int k = 0; k < 32; ++k) {
    const int code = k % 16;
    block.push_back(bf16(code >= 8 ? -grid[code - 8] : grid[code]));
  }
  return block;
}

TEST_P(EndToEnd, Fp4LanePermutationsAndParity) {
  struct Case {
    std::uint32_t stride;
    int parity;
    Bytes expected;  // 16 bytes; elements 16..31 repeat codes 0..15, so bytes 8..15 repeat 0..7
  };
  const Case cases[] = {
      // stride 0 and 1 are the identity: byte b = code(2b) | code(2b+1) << 4.
      {0, 1, {0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE}},
      {1, 1, {0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE}},
      {0, 0, {0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF}},
      // stride 2: the two pairs of each 4-nibble window swap.
      {2, 1, {0x32, 0x10, 0x76, 0x54, 0xBA, 0x98, 0xFE, 0xDC}},
      {2, 0, {0x23, 0x01, 0x67, 0x45, 0xAB, 0x89, 0xEF, 0xCD}},
      // stride 4: the four pairs of each 8-nibble window reverse.
      {4, 1, {0x76, 0x54, 0x32, 0x10, 0xFE, 0xDC, 0xBA, 0x98}},
      {4, 0, {0x67, 0x45, 0x23, 0x01, 0xEF, 0xCD, 0xAB, 0x89}},
      // stride 8: the eight pairs of each 16-nibble window reverse.
      {8, 1, {0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10}},
      {8, 0, {0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01}},
  };
  for (const Case& c : cases) {
    QuantizeConfig config = block_config(OutputDtype::kFloat4E2m1fnX4);
    config.fp4_lane_stride = c.stride;
    config.fp4_high_parity = c.parity;
    const Result r = run(config, code_ramp_block());
    Bytes expected = c.expected;
    expected.insert(expected.end(), c.expected.begin(), c.expected.end());
    EXPECT_EQ(r.data, expected) << "stride " << c.stride << " parity " << c.parity;
    EXPECT_EQ(r.scale, Bytes{127});
  }
}

// FP8 e4m3fn: max 3.0 (field 128), E8M0 = 128 - 8 = 120, M = 2^7.
const std::vector<std::uint16_t>& e4m3_block() {
  static const std::vector<std::uint16_t> block = bf16_block(
      {bf16(3.0), bf16(1.0), bf16(-1.0), bf16(0.0), bf16(-0.0), bf16(3.5), bf16(3.75), bf16(3.625),
       bf16(std::ldexp(1.0, -16)), bf16(std::ldexp(1.0, -17)), bf16(std::ldexp(3.0, -17)), bf16(-std::ldexp(1.0, -17)),
       bf16(std::ldexp(1.0625, -7)), bf16(std::ldexp(1.1875, -7)), bf16(0.0), bf16(-0.0),
       bf16(std::ldexp(1.0, -20)), bf16(-std::ldexp(1.0, -20)), bf16(0.5), bf16(2.25), bf16(2.3125), bf16(2.375),
       bf16(-2.375), bf16(std::ldexp(15.0, -17))},
      bf16(0.25));
  return block;
}

// 384 -> 0x7C, 128 -> 0x70, 448 -> 0x7E, 480 and 464 saturate to 0x7E; 2^-9 -> 0x01 (smallest
// subnormal), 2^-10 ties to 0, 3*2^-10 ties to 0x02; 1.0625 ties to 0x38, 1.1875 to 0x3A; 2^-13
// flushes; 64 -> 0x68; 288 -> 0x79, 296 -> 0x79, 304 ties to 0x7A; 15*2^-10 ties up to 0x08
// (2^-6, the smallest normal); 32 -> 0x60.
TEST_P(EndToEnd, E4m3fnBlock) {
  const Bytes expected = bytes_with_tail({0x7C, 0x70, 0xF0, 0x00, 0x80, 0x7E, 0x7E, 0x7E, 0x01, 0x00, 0x02, 0x80, 0x38,
                                          0x3A, 0x00, 0x80, 0x00, 0x80, 0x68, 0x79, 0x79, 0x7A, 0xFA, 0x08},
                                         32, 0x60);
  for (OutputDtype out : {OutputDtype::kFloat8E4m3fn, OutputDtype::kFloat8E4m3fnX4}) {
    const Result r = run(block_config(out), e4m3_block());
    EXPECT_EQ(r.scale, Bytes{120}) << name(out);
    EXPECT_EQ(r.data, expected) << name(out);
  }
}

TEST_P(EndToEnd, Fp8NanBlockUnderBothPolicies) {
  // NaN reads field 255: e4m3 E8M0 = 247 (M = 2^-120), e5m2 E8M0 = 240 (M = 2^-113); 1.0 and -1.0
  // flush to signed zeros. NaN -> sign|0x7F (canonical) or a signed zero (zero).
  const auto block = bf16_block({kBf16Nan, kBf16NegNan, bf16(1.0), bf16(-1.0)}, bf16(0.0));
  const std::pair<OutputDtype, std::uint8_t> scales[] = {{OutputDtype::kFloat8E4m3fn, 247}, {OutputDtype::kFloat8E5m2, 240},
                                                          {OutputDtype::kFloat8E4m3fnX4, 247}, {OutputDtype::kFloat8E5m2X4, 240}};
  for (const auto& [out, scale] : scales) {
    QuantizeConfig config = block_config(out);
    Result r = run(config, block);
    EXPECT_EQ(r.scale, Bytes{scale}) << name(out);
    EXPECT_EQ(r.data, bytes_with_tail({0x7F, 0xFF, 0x00, 0x80}, 32, 0x00)) << name(out);
    config.fp8_nan = Fp8NanPolicy::kZero;
    r = run(config, block);
    EXPECT_EQ(r.data, bytes_with_tail({0x00, 0x80, 0x00, 0x80}, 32, 0x00)) << name(out) << " NaN policy zero";
  }
  // FP4 has no NaN code: NaN -> signed zero whatever the FP8 policy (E8M0 253).
  const Result r = run(block_config(OutputDtype::kFloat4E2m1fnX4), block);
  EXPECT_EQ(r.scale, Bytes{253});
  EXPECT_EQ(r.data, bytes_with_tail({0x80, 0x80}, 16, 0x00));
}

TEST_P(EndToEnd, E4m3fnBlockEmaxMinus1) {
  // E8M0 121, M = 2^6: 3.0 -> 192 -> 0x74 and 3.75 -> 240 -> 0x77, which no longer saturates.
  const Result r = run(block_config(OutputDtype::kFloat8E4m3fn, EmaxMode::kEmaxMinus1), e4m3_block());
  EXPECT_EQ(r.scale, Bytes{121});
  EXPECT_EQ(r.data[0], 0x74);
  EXPECT_EQ(r.data[6], 0x77);
}

TEST_P(EndToEnd, E5m2Block) {
  // max 3.0, E8M0 = 128 - 15 = 113, M = 2^14. 49152 -> 0x7A, 2^14 -> 0x74, 57344 -> 0x7B, 61440
  // (a tie with the Inf slot) saturates to 0x7B; 2^-16 -> 0x01, 2^-17 ties to 0, 3*2^-17 ties to
  // 0x02; 1.125 ties to 0x3C, 1.375 to 0x3E; 2^-19 flushes; 0.75 * 2^14 -> 0x72.
  const std::vector<std::uint16_t> block = bf16_block(
      {bf16(3.0), bf16(1.0), bf16(-1.0), bf16(3.5), bf16(3.75), bf16(std::ldexp(1.0, -30)), bf16(std::ldexp(1.0, -31)),
       bf16(std::ldexp(3.0, -31)), bf16(std::ldexp(1.125, -14)), bf16(std::ldexp(1.375, -14)), bf16(0.0), bf16(-0.0),
       bf16(-0.0), bf16(0.0), bf16(std::ldexp(1.0, -33)), bf16(-3.0)},
      bf16(0.75));
  for (OutputDtype out : {OutputDtype::kFloat8E5m2, OutputDtype::kFloat8E5m2X4}) {
    const Result r = run(block_config(out), block);
    EXPECT_EQ(r.scale, Bytes{113}) << name(out);
    EXPECT_EQ(r.data, bytes_with_tail({0x7A, 0x74, 0xF4, 0x7B, 0x7B, 0x01, 0x00, 0x02, 0x3C, 0x3E, 0x00, 0x80, 0x80,
                                       0x00, 0x00, 0xFA},
                                      32, 0x72))
        << name(out);
  }
}

TEST_P(EndToEnd, ExponentIsSignIndependent) {
  // |-4.0| has field 129, the block max: E8M0 127, codes -4 -> 0xE, 1 -> 0x2.
  Result r = run(block_config(OutputDtype::kFloat4E2m1fnX4), bf16_block({bf16(-4.0), bf16(1.0)}, bf16(0.0)));
  EXPECT_EQ(r.scale, Bytes{127});
  EXPECT_EQ(r.data, bytes_with_tail({0x2E}, 16, 0x00));
  // e4m3: |-256| has field 135: E8M0 127, -256 -> 0xF8, 2 -> 0x40.
  r = run(block_config(OutputDtype::kFloat8E4m3fn), bf16_block({bf16(-256.0), bf16(2.0)}, bf16(0.0)));
  EXPECT_EQ(r.scale, Bytes{127});
  EXPECT_EQ(r.data, bytes_with_tail({0xF8, 0x40}, 32, 0x00));
}

TEST_P(EndToEnd, Bfloat16DenormalOnlyBlock) {
  // Denormals read field 0: E8M0 = max(1, max(0, 0 - 8)) = 1, M = 2^126. 2^-133 -> 2^-7 = 4 * 2^-9
  // -> 0x04; -3 * 2^-133 -> -1.5 * 2^-6 -> 0x8C; 127 * 2^-133 -> 0.9921875, nearer 1.0 -> 0x38.
  const Result r = run(block_config(OutputDtype::kFloat8E4m3fn), bf16_block({0x0001, 0x8003, 0x007F}, 0x0001));
  EXPECT_EQ(r.scale, Bytes{1});
  EXPECT_EQ(r.data, bytes_with_tail({0x04, 0x8C, 0x38}, 32, 0x04));
}

TEST_P(EndToEnd, Float16SubnormalBlockWidensToNormals) {
  // F16 2^-15 (0x0200) widens to an fp32 normal of field 112: E8M0 = 112 - 8 = 104, M = 2^23.
  // 2^-24 -> 0.5 -> 0x30; 2^-15 -> 256 -> 0x78; -2^-24 -> 0xB0. (Read as fp32 denormals they
  // would give E8M0 1 and saturate.)
  QuantizeConfig config = block_config(OutputDtype::kFloat8E4m3fn);
  config.input = InputDtype::kFloat16;
  const Result r = run(config, bf16_block({0x0001, 0x0200, 0x8001}, 0x0001));
  EXPECT_EQ(r.scale, Bytes{104});
  EXPECT_EQ(r.data, bytes_with_tail({0x30, 0x78, 0xB0}, 32, 0x30));
}

TEST_P(EndToEnd, ClampLowBlock) {
  // Max 2^-120 (field 7): 7 - 8 < 0 clamps to 0, then ZERO-FLOOR gives 1, M = 2^126.
  // 2^-120 -> 64 -> 0x68; 2^-121 -> 32 -> 0x60.
  const Result r = run(block_config(OutputDtype::kFloat8E4m3fn),
                       bf16_block({bf16(std::ldexp(1.0, -120)), bf16(std::ldexp(1.0, -121))}, bf16(std::ldexp(1.0, -120))));
  EXPECT_EQ(r.scale, Bytes{1});
  EXPECT_EQ(r.data, bytes_with_tail({0x68, 0x60}, 32, 0x68));
}

TEST_P(EndToEnd, ZeroBlocksGetScaleOne) {
  for (const OutputDtypeInfo& out : output_dtypes()) {
    const Result r = run(block_config(out.id), bf16_block({bf16(0.0), bf16(-0.0)}, bf16(0.0)));
    EXPECT_EQ(r.scale, Bytes{1}) << out.name;
    // FP4: element 1 (-0, code 0x8) is the high nibble of byte 0; FP8: byte 1 is 0x80.
    const Bytes expected = out.element == ElementKind::kFp4E2m1 ? bytes_with_tail({0x80}, 16, 0)
                                                                : bytes_with_tail({0x00, 0x80}, 32, 0);
    EXPECT_EQ(r.data, expected) << out.name;
  }
}

TEST_P(EndToEnd, Fp4InfBlockInEmaxMinus1ModeHasTheZeroMultiplier) {
  // Field 255 - 1 = 254: M = bit_cast((254 - 254) << 23) = +0.0. Inf * 0 and -Inf * 0 are the x86
  // default NaN (sign set) -> 0x8; 1 -> +0 -> 0x0; -1 -> -0 -> 0x8; NaN -> 0x0; -NaN -> 0x8;
  // 6 -> 0x0. codes 8 0 8 0 8 8 0 0 ...
  const Result r = run(block_config(OutputDtype::kFloat4E2m1fnX4, EmaxMode::kEmaxMinus1),
                       bf16_block({kBf16Inf, bf16(1.0), bf16(-1.0), kBf16Nan, kBf16NegNan, kBf16NegInf}, bf16(6.0)));
  EXPECT_EQ(r.scale, Bytes{254});
  EXPECT_EQ(r.data, bytes_with_tail({0x08, 0x08, 0x88}, 16, 0x00));
}

TEST_P(EndToEnd, Fp4InfBlockInDefaultMode) {
  // E8M0 = 255 - 2 = 253, M = 2^-126: Inf -> 0x7, -Inf -> 0xF, NaN -> 0x0, 6 * 2^-126 -> 0x0.
  const Result r = run(block_config(OutputDtype::kFloat4E2m1fnX4),
                       bf16_block({kBf16Inf, kBf16NegInf, kBf16Nan}, bf16(6.0)));
  EXPECT_EQ(r.scale, Bytes{253});
  EXPECT_EQ(r.data, bytes_with_tail({0xF7}, 16, 0x00));
}

TEST_P(EndToEnd, Fp8InfBlock) {
  // e4m3: E8M0 = 255 - 8 = 247, M = 2^-120. Inf saturates to 0x7E, NaN -> 0x7F, the largest
  // bfloat16 (0x7F7F, 1.9921875 * 2^127) -> 255, between 240 and 256, nearer 256 -> 0x78,
  // 1.0 -> 2^-120 -> 0.
  const auto block = bf16_block({kBf16Inf, kBf16NegInf, kBf16Nan, 0x7F7F, bf16(1.0)}, bf16(0.0));
  Result r = run(block_config(OutputDtype::kFloat8E4m3fn), block);
  EXPECT_EQ(r.scale, Bytes{247});
  EXPECT_EQ(r.data, bytes_with_tail({0x7E, 0xFE, 0x7F, 0x78, 0x00}, 32, 0x00));
  // e5m2: E8M0 240, M = 2^-113: 0x7F7F -> 1.9921875 * 2^14, nearer 2^15 -> 0x78.
  r = run(block_config(OutputDtype::kFloat8E5m2), block);
  EXPECT_EQ(r.scale, Bytes{240});
  EXPECT_EQ(r.data, bytes_with_tail({0x7B, 0xFB, 0x7F, 0x78, 0x00}, 32, 0x00));
}

TEST_P(EndToEnd, ScaleInterleaveForEveryP) {
  // Block (g, c) holds 2^(g - c) everywhere: field 127 + g - c, E8M0 = 119 + g - c, and every
  // element prescales to 2^8 -> 0x78. Physical row slot(g) = (g & 3) + 32 (g >> 2).
  for (std::size_t p = 8; p <= 128; p += 8) {
    for (ScaleLayout layout : {ScaleLayout::kPhysical, ScaleLayout::kLogical}) {
      QuantizeConfig config;
      config.partitions = p;
      config.free = 8;
      config.output = OutputDtype::kFloat8E4m3fn;
      config.scale_layout = layout;
      std::vector<std::uint16_t> input(p * 8);
      for (std::size_t row = 0; row < p; ++row) {
        for (std::size_t col = 0; col < 8; ++col) {
          input[row * 8 + col] = bf16(std::ldexp(1.0, static_cast<int>(row / 8) - static_cast<int>(col / 4)));
        }
      }
      const Result r = run(config, input);
      EXPECT_EQ(r.data, Bytes(p * 8, 0x78)) << "P " << p;
      const std::size_t groups = p / 8;
      const std::size_t rows = layout == ScaleLayout::kPhysical ? (groups - 1) % 4 + 32 * ((groups - 1) / 4) + 1 : groups;
      Bytes expected(rows * 2, kSentinel);
      for (std::size_t g = 0; g < groups; ++g) {
        const std::size_t row = layout == ScaleLayout::kPhysical ? g % 4 + 32 * (g / 4) : g;
        expected[row * 2] = static_cast<std::uint8_t>(119 + g);
        expected[row * 2 + 1] = static_cast<std::uint8_t>(118 + g);
      }
      EXPECT_EQ(r.scale, expected) << "P " << p << " layout " << name(layout);
    }
  }
}

float from_bits(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

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

TEST_P(EndToEnd, DequantizeInvertsQuantizeOnTheGrid) {
  // Values already on the block's grid come back exactly.
  const Result r = run(block_config(OutputDtype::kFloat4E2m1fnX4), code_ramp_block());
  std::vector<float> out(32);
  QuantizeConfig config = block_config(OutputDtype::kFloat4E2m1fnX4);
  GetParam()->dequantize(config, r.data.data(), r.scale.data(), out.data());
  const auto input = code_ramp_block();
  for (int k = 0; k < 32; ++k) EXPECT_EQ(out[k], from_bits(static_cast<std::uint32_t>(input[k]) << 16)) << k;
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
