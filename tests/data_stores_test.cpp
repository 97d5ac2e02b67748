// The data-store decision of the SIMD kernels (impl/data_stores.h), and the streaming paths it
// picks: at the threshold size, every SIMD built-in this CPU runs writes the oracle's bytes with
// non-temporal row stores (FP8) and with FP4 rows both ways (half lines, and gathered into whole
// lines), whichever this CPU's vendor gets by default. Expected bytes come
// from oracle::quantize; the decisions are derived by hand from the 64-byte line. With
// MXCONFORM_SUBJECT naming a plug-in, the streaming cases run on it alone (ctest does so for the
// avx512-simde plug-in, once per store strategy and prefetch choice).
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "data_stores.h"
#include "mxconform/registry.h"
#include "oracle.h"
#include "subject_from_environment.h"

namespace mxconform::impl::simd {
namespace {

constexpr std::size_t kLine = 64;
constexpr std::uint32_t kSeed = 20261203;

struct FreeDeleter {
  void operator()(std::uint8_t* p) const { std::free(p); }
};
using LineBuffer = std::unique_ptr<std::uint8_t[], FreeDeleter>;

LineBuffer line_aligned(std::size_t bytes) {
  return LineBuffer(static_cast<std::uint8_t*>(std::aligned_alloc(kLine, (bytes + kLine - 1) / kLine * kLine)));
}

QuantizeConfig config_of(OutputDtype output, std::size_t partitions, std::size_t free,
                         InputDtype input = InputDtype::kBfloat16) {
  QuantizeConfig config;
  config.output = output;
  config.input = input;
  config.partitions = partitions;
  config.free = free;
  return config;
}

TEST(ChooseDataStores, SmallOutputsUseOrdinaryStores) {
  const LineBuffer data = line_aligned(kLine);
  const QuantizeConfig config = config_of(OutputDtype::kFloat8E4m3fn, 128, 1024);  // 128 KiB of data
  EXPECT_EQ(choose_data_stores(config, data.get(), std::size_t{128} << 10), DataStores::kOrdinary);
}

TEST(ChooseDataStores, LargeFp8RowsOfWholeLinesStreamStraight) {
  const LineBuffer data = line_aligned(kLine);
  const QuantizeConfig config = config_of(OutputDtype::kFloat8E5m2, 512, 8192);  // rows of 128 lines
  EXPECT_EQ(choose_data_stores(config, data.get(), std::size_t{4} << 20), DataStores::kStreaming);
}

TEST(ChooseDataStores, LargeFp4RowsStreamAsTheCpuAsks) {
  const LineBuffer data = line_aligned(kLine);
  const QuantizeConfig config = config_of(OutputDtype::kFloat4E2m1fnX4, 1024, 8192);  // rows of 64 lines
  EXPECT_EQ(choose_data_stores(config, data.get(), std::size_t{4} << 20, Fp4Streaming::kWholeLines),
            DataStores::kStreamingLines);
  EXPECT_EQ(choose_data_stores(config, data.get(), std::size_t{4} << 20, Fp4Streaming::kHalfLines), DataStores::kStreaming);
  // FP8 rows are whole lines either way.
  EXPECT_EQ(choose_data_stores(config_of(OutputDtype::kFloat8E4m3fn, 512, 8192), data.get(), std::size_t{4} << 20,
                               Fp4Streaming::kWholeLines),
            DataStores::kStreaming);
}

// Whole lines where the half-line collapse was seen (Intel) and wherever nothing was measured;
// half lines on AMD, where gathering only costs.
// Half lines only on the AMD families measured without the collapse (Zen 2, Zen 3/4, Zen 5);
// whole lines on Intel and on every family never measured, AMD's older or newer ones included.
TEST(Fp4Streaming, HalfLinesOnlyOnTheAmdFamiliesMeasured) {
  EXPECT_EQ(fp4_streaming_for({CpuVendor::kIntel, 6, 0x8F}), Fp4Streaming::kWholeLines);
  EXPECT_EQ(fp4_streaming_for({CpuVendor::kIntel, 0x19, 0}), Fp4Streaming::kWholeLines);
  EXPECT_EQ(fp4_streaming_for({CpuVendor::kOther, 0x18, 0}), Fp4Streaming::kWholeLines);  // Hygon
  EXPECT_EQ(fp4_streaming_for({CpuVendor::kAmd, 0x17, 0x31}), Fp4Streaming::kHalfLines);
  EXPECT_EQ(fp4_streaming_for({CpuVendor::kAmd, 0x19, 0x01}), Fp4Streaming::kHalfLines);
  EXPECT_EQ(fp4_streaming_for({CpuVendor::kAmd, 0x1A, 0x02}), Fp4Streaming::kHalfLines);
  EXPECT_EQ(fp4_streaming_for({CpuVendor::kAmd, 0x15, 0x60}), Fp4Streaming::kWholeLines);
  EXPECT_EQ(fp4_streaming_for({CpuVendor::kAmd, 0x1B, 0}), Fp4Streaming::kWholeLines);
}

// A process-wide choice (`chosen()`) follows each value `force` sets, and goes back to its own
// once forced with std::nullopt.
template <class Choice>
void expect_forcing_overrides_and_releases(Choice (*chosen)(), void (*force)(std::optional<Choice>), Choice first,
                                           Choice second) {
  const Choice own = chosen();
  force(first);
  EXPECT_EQ(chosen(), first);
  force(second);
  EXPECT_EQ(chosen(), second);
  force(std::nullopt);
  EXPECT_EQ(chosen(), own);
}

TEST(Fp4Streaming, ForcingOverridesAndReleases) {
  expect_forcing_overrides_and_releases(fp4_streaming, force_fp4_streaming, Fp4Streaming::kHalfLines,
                                        Fp4Streaming::kWholeLines);
}

// No software prefetch only on the family measured faster without it (Zen 2); every other CPU,
// AMD's other families included, keeps the prefetch the kernels were tuned with.
TEST(InputPrefetch, OffOnlyOnTheFamilyMeasuredFasterWithout) {
  EXPECT_EQ(input_prefetch_for({CpuVendor::kAmd, 0x17, 0x31}), InputPrefetch::kNone);
  EXPECT_EQ(input_prefetch_for({CpuVendor::kAmd, 0x17, 0x01}), InputPrefetch::kNone);
  EXPECT_EQ(input_prefetch_for({CpuVendor::kAmd, 0x19, 0x01}), InputPrefetch::kRowStreams);
  EXPECT_EQ(input_prefetch_for({CpuVendor::kAmd, 0x1A, 0x02}), InputPrefetch::kRowStreams);
  EXPECT_EQ(input_prefetch_for({CpuVendor::kIntel, 6, 0x8F}), InputPrefetch::kRowStreams);
  EXPECT_EQ(input_prefetch_for({CpuVendor::kIntel, 0x17, 0}), InputPrefetch::kRowStreams);
  EXPECT_EQ(input_prefetch_for({CpuVendor::kOther, 0x18, 0}), InputPrefetch::kRowStreams);  // Hygon
}

TEST(InputPrefetch, ForcingOverridesAndReleases) {
  expect_forcing_overrides_and_releases(input_prefetch, force_input_prefetch, InputPrefetch::kNone,
                                        InputPrefetch::kRowStreams);
  EXPECT_STREQ(name(InputPrefetch::kRowStreams), "rows");
  EXPECT_STREQ(name(InputPrefetch::kNone), "none");
}

TEST(ChooseDataStores, OutputsOffTheLineGridUseOrdinaryStores) {
  const LineBuffer data = line_aligned(2 * kLine);
  // Data half a line off a line boundary.
  EXPECT_EQ(choose_data_stores(config_of(OutputDtype::kFloat8E4m3fn, 512, 8192), data.get() + kLine / 2, std::size_t{4} << 20),
            DataStores::kOrdinary);
  // FP8 rows of 8160 bytes, FP4 rows of 4064 bytes: not whole lines.
  EXPECT_EQ(choose_data_stores(config_of(OutputDtype::kFloat8E4m3fn, 512, 8160), data.get(), std::size_t{4} << 20),
            DataStores::kOrdinary);
  EXPECT_EQ(choose_data_stores(config_of(OutputDtype::kFloat4E2m1fnX4, 1024, 8128), data.get(), std::size_t{4} << 20),
            DataStores::kOrdinary);
}

// The oracle's bytes for one configuration at the streaming threshold. Every partition group gets
// the same input, so the oracle runs on one group (blocks are independent: docs/contract.md) and
// its bytes are repeated into each group's rows and scale row; rows of the scale buffer that no
// group names keep kSentinel.
constexpr std::uint8_t kSentinel = 0xEE;

struct StreamingCase {
  QuantizeConfig config;
  std::vector<std::uint16_t> input;
  std::vector<std::uint8_t> expected_data;
  std::vector<std::uint8_t> expected_scale;
};

StreamingCase streaming_case(InputDtype input, OutputDtype output, std::size_t free) {
  StreamingCase c;
  // At least kStreamingThreshold of output in whole partition groups (rows of whole lines: free
  // is a multiple of 64 columns).
  const std::size_t elements = kStreamingThreshold * (is_fp4(output) ? 2 : 1);
  const std::size_t groups = (elements + free * kBlockRows - 1) / (free * kBlockRows);
  c.config = config_of(output, groups * kBlockRows, free, input);
  QuantizeConfig group = c.config;
  group.partitions = kBlockRows;
  // Random finite bit patterns (every binade, subnormals) with some exact zeros, so that chunks
  // take the clean and FP8 band paths; one block column in 16 is held to the lowest binades
  // (exponent field below 16 for bfloat16, below 2 for float16), so that most chunks take the
  // general path, with zeros, subnormal inputs and band lanes of their own.
  std::mt19937 random(kSeed);
  const std::uint16_t exponent_mask = input == InputDtype::kBfloat16 ? 0x7F80 : 0x7C00;
  const std::uint16_t top_exponent_bit = 0x4000;
  const std::uint16_t tiny_mask = 0x87FF;  // sign, the lowest exponent bits, the mantissa
  std::vector<std::uint16_t> group_input(kBlockRows * free);
  std::vector<bool> tiny_block(free / kBlockCols);
  for (std::size_t b = 0; b < tiny_block.size(); ++b) tiny_block[b] = random() % 16 == 0;
  for (std::size_t i = 0; i < group_input.size(); ++i) {
    std::uint16_t x = static_cast<std::uint16_t>(random());
    if ((x & exponent_mask) == exponent_mask) x = static_cast<std::uint16_t>(x & ~top_exponent_bit);
    if (tiny_block[i % free / kBlockCols]) x = static_cast<std::uint16_t>(x & tiny_mask);
    group_input[i] = x;
  }
  for (std::size_t i = 0; i < group_input.size(); i += 997) group_input[i] = 0;
  const Geometry group_geometry = geometry(group);
  std::vector<std::uint8_t> group_data(group_geometry.data_bytes);
  std::vector<std::uint8_t> group_scale(group_geometry.scale_bytes);
  oracle::quantize(group, group_input.data(), group_data.data(), group_scale.data());

  const Geometry g = geometry(c.config);
  c.expected_scale.assign(g.scale_bytes, kSentinel);
  for (std::size_t each = 0; each < groups; ++each) {
    c.input.insert(c.input.end(), group_input.begin(), group_input.end());
    c.expected_data.insert(c.expected_data.end(), group_data.begin(), group_data.end());
    std::copy(group_scale.begin(), group_scale.begin() + g.block_cols,
              c.expected_scale.begin() + scale_row(c.config, each) * g.block_cols);
  }
  return c;
}

// (input, output, FP4 store strategy, free). FP8 at streaming sizes leaves the rows that need
// the subnormal band to batches of 16 chunks (BandRows, in both SIMD kernels): 8192 columns end each
// partition group on a batch boundary, 6400 (100 chunks) in the middle of one, and the last
// batch of the tensor is a partial one.
class StreamingStores
    : public testing::TestWithParam<std::tuple<InputDtype, OutputDtype, Fp4Streaming, std::size_t>> {};

// Whether `subject` wrote the oracle's bytes for `c`; `who` names the run in the failure.
void expect_oracle_bytes(const Subject& subject, const StreamingCase& c, const LineBuffer& data, const std::string& who) {
  const Geometry g = geometry(c.config);
  std::fill(data.get(), data.get() + g.data_bytes, kSentinel);
  std::vector<std::uint8_t> scale(g.scale_bytes, kSentinel);
  subject.quantize(c.config, c.input.data(), data.get(), scale.data());
  const auto data_end = data.get() + g.data_bytes;
  const auto [actual_data, expected_data] = std::mismatch(data.get(), data_end, c.expected_data.begin());
  EXPECT_EQ(actual_data, data_end) << who << ": first differing data byte at " << (actual_data - data.get())
                                   << ": expected " << int{*expected_data} << ", actual " << int{*actual_data};
  const auto [actual_scale, expected_scale] = std::mismatch(scale.begin(), scale.end(), c.expected_scale.begin());
  EXPECT_EQ(actual_scale, scale.end()) << who << ": first differing scale byte at " << (actual_scale - scale.begin());
}

TEST_P(StreamingStores, EverySimdBuiltInWritesTheOraclesBytes) {
  const auto [input, output, fp4, free] = GetParam();
  const StreamingCase c = streaming_case(input, output, free);
  const Geometry g = geometry(c.config);
  const LineBuffer data = line_aligned(g.data_bytes);
  ASSERT_NE(choose_data_stores(c.config, data.get(), g.data_bytes, fp4), DataStores::kOrdinary);
  if (const Subject* plugin = testing_support::subject_from_environment()) {
    // A plug-in has its own copy of data_stores.cpp, which cannot be forced from here. It makes
    // the choices this process makes unforced: the CPU's own, or MXCONFORM_FP4_STREAMING's and
    // MXCONFORM_PREFETCH's, which ctest sets for each run of this test.
    if (is_fp4(output) && fp4_streaming() != fp4) {
      GTEST_SKIP() << "this run's FP4 store strategy is " << name(fp4_streaming()) << " (MXCONFORM_FP4_STREAMING), not "
                   << name(fp4) << ": another run of this test takes this case";
    }
    expect_oracle_bytes(*plugin, c, data, std::string(plugin->name()) + ", prefetch " + name(input_prefetch()));
    return;
  }
  force_fp4_streaming(fp4);
  struct Release {
    ~Release() {
      force_fp4_streaming(std::nullopt);
      force_input_prefetch(std::nullopt);
    }
  } release;
  // The prefetch changes no byte; both ways are run whichever this CPU would choose.
  for (const InputPrefetch prefetch : {InputPrefetch::kRowStreams, InputPrefetch::kNone}) {
    force_input_prefetch(prefetch);
    for (const Subject* subject : built_in_subjects()) {
      if (subject->is_reference() || subject->name() == "scalar" || !runnable_here(*subject)) continue;
      expect_oracle_bytes(*subject, c, data, std::string(subject->name()) + ", prefetch " + name(prefetch));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    AtTheThreshold, StreamingStores,
    testing::Values(std::tuple{InputDtype::kBfloat16, OutputDtype::kFloat4E2m1fnX4, Fp4Streaming::kWholeLines, std::size_t{8192}},
                    std::tuple{InputDtype::kFloat16, OutputDtype::kFloat4E2m1fnX4, Fp4Streaming::kWholeLines, std::size_t{8192}},
                    std::tuple{InputDtype::kBfloat16, OutputDtype::kFloat4E2m1fnX4, Fp4Streaming::kHalfLines, std::size_t{8192}},
                    std::tuple{InputDtype::kFloat16, OutputDtype::kFloat4E2m1fnX4, Fp4Streaming::kHalfLines, std::size_t{8192}},
                    std::tuple{InputDtype::kBfloat16, OutputDtype::kFloat8E4m3fn, Fp4Streaming::kWholeLines, std::size_t{8192}},
                    std::tuple{InputDtype::kBfloat16, OutputDtype::kFloat8E4m3fn, Fp4Streaming::kWholeLines, std::size_t{6400}},
                    std::tuple{InputDtype::kFloat16, OutputDtype::kFloat8E4m3fn, Fp4Streaming::kWholeLines, std::size_t{6400}},
                    std::tuple{InputDtype::kBfloat16, OutputDtype::kFloat8E5m2, Fp4Streaming::kWholeLines, std::size_t{6400}},
                    std::tuple{InputDtype::kFloat16, OutputDtype::kFloat8E5m2, Fp4Streaming::kWholeLines, std::size_t{8192}}));

}  // namespace
}  // namespace mxconform::impl::simd
