// The shrinker (certify/shrink.h) on planted faults (tests/backends): faults that need more than
// one block end at the smallest shape that still fails, with at most 2 non-zero elements; a
// backend with two independent bugs gives a repro of each, each failing the way its original did;
// every repro certify writes loads and, replayed, fails with its original's signature.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "certification.h"
#include "corpus_loader.h"
#include "isolated_backend.h"
#include "mxconform/difference.h"
#include "mxconform/profile.h"
#include "repro_writer.h"
#include "shrink.h"
#include "test_backends.h"

namespace mxconform::certify {
namespace {

constexpr std::uint16_t kBfloat16NaN = 0x7FC0;
constexpr std::uint16_t kBfloat16NegativeZero = 0x8000;

QuantizeConfig e4m3(std::size_t partitions, std::size_t free) {
  QuantizeConfig c;
  c.input = InputDtype::kBfloat16;
  c.output = OutputDtype::kFloat8E4m3fn;
  c.partitions = partitions;
  c.free = free;
  return c;
}

// Non-zero bfloat16 values that are never a tie nor saturate at any block scale: the lowest
// mantissa bit set (the 4 bits e4m3fn drops are never 1000) and the top three below 0b110 (a
// block's largest scaled value stays below 1.75 * 2^8 = 448).
std::vector<std::uint16_t> ordinary_values(std::size_t count, std::uint32_t seed) {
  std::vector<std::uint16_t> out(count);
  std::uint32_t state = seed;
  for (auto& bits : out) {
    state = state * 1664525u + 1013904223u;
    const std::uint32_t sign = (state >> 31) & 1u;
    const std::uint32_t exponent = 120 + (state >> 20) % 16;
    const std::uint32_t top = (state >> 12) % 6;
    const std::uint32_t middle = (state >> 8) % 8;
    bits = static_cast<std::uint16_t>(sign << 15 | exponent << 7 | top << 4 | middle << 1 | 1u);
  }
  return out;
}

struct Observed {
  CallResult result;
  FailureSignature signature;
};

Observed observe(IsolatedBackend& backend, const QuantizeConfig& config, const std::vector<std::uint16_t>& input) {
  std::vector<std::uint8_t> data, scale;
  expected_output(config, input, data, scale);
  Observed r{backend.run(config, input, data, scale), {}};
  r.signature = signature_of(r.result, config, input, data, scale);
  return r;
}

// The repro as certify writes it, loaded back, run again on a fresh worker: its signature.
std::string replayed_signature(const std::string& backend_path, const std::string& repro_yaml) {
  const std::vector<corpus::CorpusCase> cases = corpus::load_corpus_text(repro_yaml, "repro");
  EXPECT_EQ(cases.size(), 1u);
  if (cases.size() != 1) return "";
  IsolatedBackend backend(backend_path, WorkerLimits{5, 0});
  return observe(backend, cases[0].config, cases[0].input).signature.text;
}

struct MultiBlockFault {
  const char* backend;
  std::size_t partitions, free;  // the smallest failing shape
};

class MultiBlockShrink : public ::testing::TestWithParam<MultiBlockFault> {};

TEST_P(MultiBlockShrink, EndsAtTheSmallestFailingShapeWithAtMostTwoNonZeros) {
  const MultiBlockFault& fault = GetParam();
  // [128, 100]: P >= 64, a fifth block row, F > 32 with F % 32 == 4, 25 column blocks.
  const QuantizeConfig config = e4m3(128, 100);
  const std::vector<std::uint16_t> input = ordinary_values(128 * 100, 12345);
  IsolatedBackend backend(fault.backend, WorkerLimits{5, 0});
  const Observed original = observe(backend, config, input);
  ASSERT_EQ(original.result.outcome, Outcome::kWrongResult) << original.result.detail;

  const ShrunkCase shrunk = shrink_failure(backend, config, input, original.result, original.signature);
  EXPECT_EQ(shrunk.config.partitions, fault.partitions) << fault.backend;
  EXPECT_EQ(shrunk.config.free, fault.free) << fault.backend;
  EXPECT_LE(non_zero_elements(shrunk.config, shrunk.input), 2u) << fault.backend;
  EXPECT_GE(non_zero_elements(shrunk.config, shrunk.input), 1u) << fault.backend;
  EXPECT_EQ(shrunk.signature.text, original.signature.text);
  // Its own run, and a fresh one from the repro file, fail the same way.
  EXPECT_EQ(observe(backend, shrunk.config, shrunk.input).signature.text, original.signature.text);
  const corpus::CorpusCase repro = corpus::make_repro_case(shrunk.config, shrunk.input, "shrink-test", 1);
  EXPECT_EQ(replayed_signature(fault.backend, corpus::format_corpus_file({repro}, "test")), original.signature.text);
}

INSTANTIATE_TEST_SUITE_P(PlantedFaults, MultiBlockShrink,
                         ::testing::Values(MultiBlockFault{MXCONFORM_TEST_BACKEND_FIFTH_ROW_SCALE_SLOT, 40, 4},
                                           MultiBlockFault{MXCONFORM_TEST_BACKEND_LARGE_P_BUG, 64, 4},
                                           MultiBlockFault{MXCONFORM_TEST_BACKEND_TAIL_COLUMN_BUG, 8, 36},
                                           MultiBlockFault{MXCONFORM_TEST_BACKEND_LAST_COLUMN_BLOCK_BUG, 8, 8}));

// A profile with 1x32 blocks (ocp-floor) shrinks in whole 1x32 blocks: ties away (microxcaling's
// rule) declared as ocp-floor (RNE) fails on one tie, in block (row 2, column block 1) of a
// [4, 96] tensor, and ends as that block alone, [1, 32], with the tie as its one non-zero.
// A block of 1.0 (bf16 0x3F80) and one 1.0625 (0x3F88): amax 1.0625, scale 2^-8 (floor rule, e4m3's
// emax 8), 1.0625 * 2^8 = 272 lies halfway between e4m3's 256 and 288; RNE keeps 256, away gives 288.
TEST(Shrink, A1x32ProfileShrinksInItsOwnBlocks) {
  QuantizeConfig config = e4m3(4, 96);
  apply_profile(config, ProfileId::kOcpFloor);
  std::vector<std::uint16_t> input = ordinary_values(4 * 96, 99);
  for (std::size_t c = 32; c < 64; ++c) input[2 * 96 + c] = 0x3F80;
  input[2 * 96 + 45] = 0x3F88;
  IsolatedBackend backend(MXCONFORM_TEST_BACKEND_PROFILE_MICROXCALING_AS_OCP_FLOOR, WorkerLimits{5, 0});
  const Observed original = observe(backend, config, input);
  ASSERT_EQ(original.result.outcome, Outcome::kWrongResult) << original.result.detail;
  ASSERT_TRUE(original.signature.comparison && original.signature.comparison->first_data());
  EXPECT_EQ(original.signature.comparison->first_data()->group, 2u);
  EXPECT_EQ(original.signature.comparison->first_data()->column_block, 1u);

  const ShrunkCase shrunk = shrink_failure(backend, config, input, original.result, original.signature);
  EXPECT_EQ(shrunk.config.partitions, 1u);
  EXPECT_EQ(shrunk.config.free, 32u);
  EXPECT_EQ(non_zero_elements(shrunk.config, shrunk.input), 1u);
  EXPECT_EQ(shrunk.signature.text, original.signature.text);
  const corpus::CorpusCase repro = corpus::make_repro_case(shrunk.config, shrunk.input, "shrink-test", 1);
  EXPECT_EQ(replayed_signature(MXCONFORM_TEST_BACKEND_PROFILE_MICROXCALING_AS_OCP_FLOOR,
                               corpus::format_corpus_file({repro}, "test")),
            original.signature.text);
}

TEST(Shrink, KeepsTheBugItStartedFrom) {
  IsolatedBackend backend(MXCONFORM_TEST_BACKEND_TWO_BUGS, WorkerLimits{5, 0});
  // [16, 8]: a -0 in block (0, 0) (the data-byte bug), a NaN in block (1, 1) (the scale-byte bug).
  // The scale byte is reported first; the -0's block comes first in block order.
  const QuantizeConfig config = e4m3(16, 8);
  std::vector<std::uint16_t> both = ordinary_values(16 * 8, 7);
  both[1] = kBfloat16NegativeZero;
  both[9 * 8 + 5] = kBfloat16NaN;
  const Observed original = observe(backend, config, both);
  ASSERT_EQ(original.result.outcome, Outcome::kWrongResult);
  ASSERT_TRUE(original.signature.comparison && original.signature.comparison->first_scale());
  ASSERT_TRUE(original.signature.comparison->first_data()) << "both bugs show";
  EXPECT_EQ(original.signature.comparison->first_scale()->block_class, BlockClass::kNan);
  EXPECT_EQ(original.signature.comparison->first_data()->element_class, ElementClass::kZero);

  const ShrunkCase scale_repro = shrink_failure(backend, config, both, original.result, original.signature);
  EXPECT_EQ(scale_repro.signature.text, original.signature.text);
  EXPECT_EQ(scale_repro.config.partitions, 8u);
  EXPECT_EQ(scale_repro.config.free, 4u);
  EXPECT_EQ(non_zero_elements(scale_repro.config, scale_repro.input), 1u) << "the NaN alone";

  // The -0 alone: the other bug, kept as itself.
  std::vector<std::uint16_t> zero_only = ordinary_values(16 * 8, 7);
  zero_only[1] = kBfloat16NegativeZero;
  const Observed data_bug = observe(backend, config, zero_only);
  ASSERT_EQ(data_bug.result.outcome, Outcome::kWrongResult);
  EXPECT_NE(data_bug.signature.text, original.signature.text);
  const ShrunkCase data_repro = shrink_failure(backend, config, zero_only, data_bug.result, data_bug.signature);
  EXPECT_EQ(data_repro.signature.text, data_bug.signature.text);
  EXPECT_EQ(data_repro.config.partitions, 8u);
  EXPECT_EQ(data_repro.config.free, 4u);
  EXPECT_LE(non_zero_elements(data_repro.config, data_repro.input), 2u);
}

TEST(Shrink, CertifyReprosOfTwoBugsEachFailLikeTheirOriginal) {
  CertifyOptions options;
  options.backend = MXCONFORM_TEST_BACKEND_TWO_BUGS;
  options.campaigns = {"properties"};
  options.timeout_seconds = 5;
  const Certificate c = run_certification(options);
  ASSERT_FALSE(c.certified());
  ASSERT_FALSE(c.failures.empty());
  bool scale_bug = false, data_bug = false;
  for (const Failure& f : c.failures) {
    SCOPED_TRACE(f.case_id + ": " + f.signature);
    ASSERT_EQ(f.outcome, Outcome::kWrongResult);
    scale_bug = scale_bug || f.signature.find("scale byte, nan-block") != std::string::npos;
    data_bug = data_bug || f.signature.find("data byte") != std::string::npos;
    // Every repro loads, and replayed on a fresh worker fails the way its original did.
    EXPECT_EQ(replayed_signature(options.backend, f.repro_yaml), f.signature);
    EXPECT_NE(f.repro_yaml.find("# this repro: "), std::string::npos);
    EXPECT_FALSE(f.repro_detail.empty());
  }
  EXPECT_TRUE(scale_bug) << "the NaN-block scale bug has a repro";
  EXPECT_TRUE(data_bug) << "the -0 data bug has a repro";
}

}  // namespace
}  // namespace mxconform::certify
