// quantize_parallel (include/mxconform/parallel_quantize.h): every built-in kernel this CPU runs,
// on 1, 2, 3 and 7 threads, writes the oracle's bytes for every output dtype, both scale layouts,
// FP4 lane strides and odd shapes, and leaves the scale rows no slot names untouched. Expected
// bytes come from oracle::quantize, never from the code under test.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mxconform/parallel_quantize.h"
#include "mxconform/registry.h"
#include "oracle.h"

namespace mxconform {
namespace {

constexpr std::uint32_t kSeed = 20260611;
constexpr std::uint8_t kSentinel = 0xEE;  // pre-filled in every scale buffer
constexpr std::size_t kThreadCounts[] = {1, 2, 3, 7};
constexpr std::size_t kPartitions[] = {8, 40, 72, 200};
#if !defined(__SANITIZE_ADDRESS__)
constexpr std::size_t kFree[] = {4, 36, 100, 520};
#else
// Under the sanitizers (.ci/run step 2) the widest F is 168 instead of 520: still, for both SIMD
// kernels, two wide chunks (so the AVX-512 kernel measures one ahead), a narrow chunk and a scalar
// tail in every row, but the oracle's expected bytes, nearly all of this test's time there (about
// 200 s a kernel), cost about half as much. The Release run keeps 520.
constexpr std::size_t kFree[] = {4, 36, 100, 168};
#endif
// 0 (no remap), the contract's strides, and strides whose windows span more than one partition
// group at small F (so that a piece may only start every 2 or 4 groups).
constexpr std::uint32_t kLaneStrides[] = {0, 1, 2, 4, 8, 16, 32, 64};
constexpr OutputDtype kOutputs[] = {OutputDtype::kFloat4E2m1fnX4, OutputDtype::kFloat8E4m3fn, OutputDtype::kFloat8E5m2,
                                    OutputDtype::kFloat8E4m3fnX4, OutputDtype::kFloat8E5m2X4};

struct ParallelCase {
  QuantizeConfig config;
  std::vector<std::uint16_t> input;
  std::vector<std::uint8_t> expected_data;
  std::vector<std::uint8_t> expected_scale;  // kSentinel in the rows no slot names
};

bool valid(const QuantizeConfig& config) {
  try {
    validate(config);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// The configurations: every output dtype, layout and lane stride over kPartitions x kFree for
// bfloat16 (float16 for the physical layout, the non-x4 dtypes and strides 0 and 2), and the long
// strides again with P = 128, whose even group count makes them valid at F = 4 and 36. Invalid
// configurations are left out.
std::vector<QuantizeConfig> parallel_configs() {
  std::vector<QuantizeConfig> configs;
  auto add = [&](QuantizeConfig config) {
    if (valid(config)) configs.push_back(config);
  };
  for (OutputDtype output : kOutputs) {
    for (ScaleLayout layout : {ScaleLayout::kPhysical, ScaleLayout::kLogical}) {
      for (std::uint32_t stride : kLaneStrides) {
        if (stride != 0 && !is_fp4(output)) continue;
        for (InputDtype input : {InputDtype::kBfloat16, InputDtype::kFloat16}) {
          // float16 picks other kernel instantiations, not other cuts: a subset keeps the oracle quick.
          const bool x4 = output == OutputDtype::kFloat8E4m3fnX4 || output == OutputDtype::kFloat8E5m2X4;
          if (input == InputDtype::kFloat16 && (layout == ScaleLayout::kLogical || x4 || (stride != 0 && stride != 2))) {
            continue;
          }
          for (std::size_t partitions : kPartitions) {
            for (std::size_t free : kFree) {
              QuantizeConfig config;
              config.input = input;
              config.output = output;
              config.scale_layout = layout;
              config.fp4_lane_stride = stride;
              config.partitions = partitions;
              config.free = free;
              add(config);
              if (stride > 8 && partitions == kPartitions[0]) {
                config.partitions = 128;
                add(config);
              }
            }
          }
        }
      }
    }
  }
  return configs;
}

// Random bits: every exponent, sign, NaN and Inf of the input dtype turn up.
const std::vector<ParallelCase>& parallel_cases() {
  static const std::vector<ParallelCase> kCases = [] {
    std::vector<ParallelCase> cases;
    std::mt19937 rng(kSeed);
    std::uniform_int_distribution<std::uint32_t> bits(0, 0xFFFF);
    for (const QuantizeConfig& config : parallel_configs()) {
      const Geometry g = geometry(config);
      ParallelCase c{config, std::vector<std::uint16_t>(config.partitions * config.free),
                     std::vector<std::uint8_t>(g.data_bytes), std::vector<std::uint8_t>(g.scale_bytes, kSentinel)};
      for (std::uint16_t& element : c.input) element = static_cast<std::uint16_t>(bits(rng));
      oracle::quantize(config, c.input.data(), c.expected_data.data(), c.expected_scale.data());
      cases.push_back(std::move(c));
    }
    return cases;
  }();
  return kCases;
}

// "" when equal; otherwise the first differing byte, in hex, with the count of differing bytes.
std::string first_difference(const char* what, const std::vector<std::uint8_t>& expected,
                             const std::vector<std::uint8_t>& actual) {
  std::size_t differing = 0, first = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] == actual[i]) continue;
    if (differing++ == 0) first = i;
  }
  if (differing == 0) return "";
  char text[160];
  std::snprintf(text, sizeof text, "%s byte %zu: expected 0x%02X, actual 0x%02X (%zu of %zu bytes differ)", what, first,
                expected[first], actual[first], differing, expected.size());
  return text;
}

class ParallelQuantizeTest : public ::testing::TestWithParam<const Subject*> {};

TEST_P(ParallelQuantizeTest, EveryThreadCountWritesTheOraclesBytes) {
  const Subject& subject = *GetParam();
  if (!runnable_here(subject)) GTEST_SKIP() << subject.name() << ": " << not_runnable_reason(subject);
  ASSERT_TRUE(quantizes_in_parallel(subject));
  constexpr int kMaxFailures = 10;
  int failures = 0;
  for (const ParallelCase& c : parallel_cases()) {
    for (std::size_t threads : kThreadCounts) {
      const Geometry g = geometry(c.config);
      std::vector<std::uint8_t> data(g.data_bytes, kSentinel);
      std::vector<std::uint8_t> scale(g.scale_bytes, kSentinel);
      quantize_parallel(subject, c.config, c.input.data(), data.data(), scale.data(), threads);
      const std::string problem =
          first_difference("data", c.expected_data, data) + first_difference(" scale", c.expected_scale, scale);
      if (problem.empty()) continue;
      ADD_FAILURE() << subject.name() << " on " << threads << " threads, " << describe(c.config) << ": " << problem;
      if (++failures == kMaxFailures) return;
    }
  }
}

std::vector<const Subject*> kernels() {
  std::vector<const Subject*> result;
  for (const Subject* each : built_in_subjects()) {
    if (!each->is_reference()) result.push_back(each);
  }
  return result;
}

INSTANTIATE_TEST_SUITE_P(BuiltIns, ParallelQuantizeTest, ::testing::ValuesIn(kernels()),
                         [](const auto& info) { return std::string(info.param->name()); });

// The oracle's own sentinel rows are the ones no slot names: the comparison above checks them.
TEST(ParallelQuantizeCases, UnnamedScaleRowsHoldTheSentinelInTheExpectedBytes) {
  for (const ParallelCase& c : parallel_cases()) {
    const Geometry g = geometry(c.config);
    const std::vector<bool> named = named_scale_rows(c.config);
    for (std::size_t row = 0; row < g.scale_rows; ++row) {
      if (named[row]) continue;
      for (std::size_t col = 0; col < g.block_cols; ++col) {
        ASSERT_EQ(c.expected_scale[row * g.block_cols + col], kSentinel) << describe(c.config) << " row " << row;
      }
    }
  }
}

// Pieces cover every group once, in order, and start only at a multiple of 4 groups (physical
// layout) and of a lane-remap window (FP4 with a stride).
TEST(SplitIntoPieces, PiecesStartOnlyWhereTheWholeTensorsBytesCarryOver) {
  for (const QuantizeConfig& config : parallel_configs()) {
    for (std::size_t requested : {1, 2, 3, 7, 64}) {
      const std::vector<QuantizePiece> pieces = split_into_pieces(config, requested);
      ASSERT_FALSE(pieces.empty());
      ASSERT_LE(pieces.size(), requested);
      const Geometry g = geometry(config);
      std::size_t next_group = 0;
      for (const QuantizePiece& piece : pieces) {
        SCOPED_TRACE(describe(config) + " piece at group " + std::to_string(piece.first_group));
        EXPECT_EQ(piece.first_group, next_group);
        ASSERT_GT(piece.config.partitions, 0u);
        EXPECT_NO_THROW(validate(piece.config));
        EXPECT_EQ(piece.config.free, config.free);
        EXPECT_EQ(piece.input_offset, piece.first_group * kBlockRows * config.free);
        EXPECT_EQ(piece.data_offset, piece.first_group * kBlockRows * g.data_row_bytes);
        EXPECT_EQ(piece.scale_offset, scale_row(config, piece.first_group) * g.block_cols);
        if (config.scale_layout == ScaleLayout::kPhysical) {
          EXPECT_EQ(piece.first_group % 4, 0u);
        }
        if (is_fp4(config.output) && config.fp4_lane_stride != 0) {
          EXPECT_EQ(piece.input_offset % (2 * config.fp4_lane_stride), 0u);
        }
        next_group += piece.config.partitions / kBlockRows;
      }
      EXPECT_EQ(next_group, g.block_rows);
    }
  }
}

TEST(SplitIntoPieces, AsManyPiecesAsRequestedWhenTheTensorAllowsIt) {
  QuantizeConfig config;
  config.partitions = 4096;
  config.free = 8192;
  for (std::size_t requested : {1, 2, 3, 7, 64}) EXPECT_EQ(split_into_pieces(config, requested).size(), requested);
  config.partitions = 40;  // 5 groups, physical: cuts only at group 4
  EXPECT_EQ(split_into_pieces(config, 7).size(), 2u);
  config.scale_layout = ScaleLayout::kLogical;
  EXPECT_EQ(split_into_pieces(config, 7).size(), 5u);
  config.partitions = 8;
  EXPECT_EQ(split_into_pieces(config, 7).size(), 1u);
}

// A subject outside the registry (a plug-in, say) runs as one call with the whole configuration.
class CountingSubject final : public Subject {
 public:
  std::string_view name() const override { return "counting"; }
  std::string_view description() const override { return "counts its calls"; }
  CpuFeatures required_features() const override { return {}; }
  void quantize(const QuantizeConfig& config, const std::uint16_t*, std::uint8_t*, std::uint8_t*) const override {
    ++calls;
    partitions = config.partitions;
  }
  void dequantize(const QuantizeConfig&, const std::uint8_t*, const std::uint8_t*, float*) const override {}
  mutable int calls = 0;
  mutable std::size_t partitions = 0;
};

TEST(QuantizeParallel, SubjectsOutsideTheRegistryAndTheOracleRunOnOneThread) {
  CountingSubject subject;
  EXPECT_FALSE(quantizes_in_parallel(subject));
  EXPECT_FALSE(quantizes_in_parallel(oracle::backend()));
  QuantizeConfig config;
  config.partitions = 256;
  config.free = 64;
  quantize_parallel(subject, config, nullptr, nullptr, nullptr, 7);
  EXPECT_EQ(subject.calls, 1);
  EXPECT_EQ(subject.partitions, 256u);
}

TEST(QuantizeParallel, DefaultThreadsIsAtLeastOne) { EXPECT_GE(default_quantize_threads(), 1u); }

}  // namespace
}  // namespace mxconform
