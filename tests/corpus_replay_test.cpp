// corpus/case_replay.h: the whole corpus on every runnable implementation, and what a failure
// reports (the differing bytes with their element, block and E8M0).
#include <functional>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "case_replay.h"
#include "corpus_loader.h"
#include "mxconform/error.h"
#include "mxconform/registry.h"
#include "oracle.h"

namespace mxconform::corpus {
namespace {

const std::vector<CorpusCase>& corpus() {
  static const std::vector<CorpusCase> kCases = load_corpus({MXCONFORM_CORPUS_DIR});
  return kCases;
}

class CorpusReplay : public ::testing::TestWithParam<const Subject*> {};

TEST_P(CorpusReplay, EveryCasePasses) {
  for (const CorpusCase& c : corpus()) {
    const ReplayResult result = replay_case(c, *GetParam());
    std::string report = result.reason;
    for (const Difference& d : result.comparison.data) report += "\n  " + to_string(d);
    for (const Difference& d : result.comparison.scale) report += "\n  " + to_string(d);
    EXPECT_FALSE(is_failure(result.outcome)) << c.id << " (" << to_string(c.location) << ")" << report;
  }
}

std::vector<const Subject*> runnable_implementations() {
  std::vector<const Subject*> out;
  for (const Subject* impl : built_in_subjects()) {
    if (runnable_here(*impl)) out.push_back(impl);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(EveryImplementation, CorpusReplay, ::testing::ValuesIn(runnable_implementations()),
                         [](const auto& info) { return std::string(info.param->name()); });

// The oracle, then `after` on its outputs: a subject with a planted fault.
class PlantedFault final : public Subject {
 public:
  using Hook = std::function<void(std::uint8_t* data, std::uint8_t* scale)>;
  explicit PlantedFault(Hook after, std::string unsupported = "") : after_(std::move(after)), unsupported_(std::move(unsupported)) {}
  std::string_view name() const override { return "planted"; }
  std::string_view description() const override { return "the oracle with a planted fault"; }
  CpuFeatures required_features() const override { return {}; }
  std::string unsupported_reason(const QuantizeConfig&) const override { return unsupported_; }
  void quantize(const QuantizeConfig& config, const std::uint16_t* input, std::uint8_t* data,
                std::uint8_t* scale) const override {
    oracle::quantize(config, input, data, scale);
    after_(data, scale);
  }
  void dequantize(const QuantizeConfig& config, const std::uint8_t* data, const std::uint8_t* scale,
                  float* output) const override {
    oracle::dequantize(config, data, scale, output);
  }

 private:
  Hook after_;
  std::string unsupported_;
};

// The reported differences as replay prints them: data bytes, then scale bytes.
std::vector<Difference> differences(const ReplayResult& result) {
  std::vector<Difference> out = result.comparison.data;
  out.insert(out.end(), result.comparison.scale.begin(), result.comparison.scale.end());
  return out;
}

CorpusCase one_case(const std::string& shape, const std::string& config, const std::string& fill,
                    const std::string& scale, const std::string& data) {
  const std::string text = "schema: 1\ncases:\n  - id: t\n    why: w\n    source: s\n    input: {dtype: bfloat16, shape: " +
                           shape + ", " + fill + "}\n    config: " + config + "\n    expect: {scale: \"" + scale +
                           "\", data: \"" + data + "\"}\n";
  return load_corpus_text(text, "t.yaml").at(0);
}

// The code ramp of fp4_lanes.yaml: element k has code k % 16, E8M0 127.
const char* const kRamp = "pattern: [0, 0.5, 1, 1.5, 2, 3, 4, 6, -0, -0.5, -1, -1.5, -2, -3, -4, -6]";

TEST(CaseReplay, WrongDataByteFailsNamingElementBlockAndE8m0) {
  // Byte 0 should be 0x10 (elements 0 and 1); the case claims 0x16.
  const CorpusCase c = one_case("[8, 4]", "{out-dtype: float4_e2m1fn_x4}", kRamp, "7F",
                                "16 32 54 76 98 BA DC FE 10 32 54 76 98 BA DC FE");
  const ReplayResult result = replay_case(c, oracle::backend());
  EXPECT_EQ(result.outcome, Outcome::kWrongResult);
  EXPECT_EQ(result.comparison.data_differences, 1u);
  EXPECT_EQ(result.comparison.scale_differences, 0u);
  ASSERT_EQ(differences(result).size(), 1u);
  EXPECT_EQ(to_string(differences(result)[0]),
            "data byte 0: expected 0x16, actual 0x10; low nibble: element 0 (row 0, col 0) code 0x6 -> 0x0, block (0, 0) "
            "E8M0 127");
}

TEST(CaseReplay, LaneRemappedNibbleNamesItsElement) {
  // Stride 2: byte 0 holds elements 2 and 3; its high nibble (position 1) is element 3.
  const CorpusCase c = one_case("[8, 4]", "{out-dtype: float4_e2m1fn_x4, lane-stride: 2}", kRamp, "7F",
                                "42 10 76 54 BA 98 FE DC 32 10 76 54 BA 98 FE DC");
  const ReplayResult result = replay_case(c, oracle::backend());
  ASSERT_EQ(differences(result).size(), 1u);
  EXPECT_EQ(to_string(differences(result)[0]),
            "data byte 0: expected 0x42, actual 0x32; high nibble: element 3 (row 0, col 3) code 0x4 -> 0x3, block (0, 0) "
            "E8M0 127");
}

TEST(CaseReplay, WrongScaleByteFails) {
  const CorpusCase c = one_case("[8, 8]", "{out-dtype: float8_e4m3fn}", "fill: 256", "7F 7E", "78*64");
  const ReplayResult result = replay_case(c, oracle::backend());
  EXPECT_EQ(result.outcome, Outcome::kWrongResult);
  ASSERT_EQ(differences(result).size(), 1u);
  EXPECT_EQ(to_string(differences(result)[0]), "scale byte 1 (row 0): expected 0x7E, actual 0x7F; the E8M0 of block (0, 1)");
}

TEST(CaseReplay, SubjectWithTheWrongE8m0IsNamedInElementDifferences) {
  const CorpusCase c = one_case("[8, 4]", "{out-dtype: float8_e4m3fn}", "fill: 256", "7F", "78*32");
  const PlantedFault halved([](std::uint8_t* data, std::uint8_t* scale) {
    scale[0] = 0x80;
    data[5] = 0x70;
  });
  const ReplayResult result = replay_case(c, halved);
  ASSERT_EQ(differences(result).size(), 2u);
  EXPECT_EQ(to_string(differences(result)[0]),
            "data byte 5: expected 0x78, actual 0x70; element 5 (row 1, col 1) code 0x78 -> 0x70, block (0, 0) E8M0 127 "
            "(actual 128)");
  EXPECT_EQ(to_string(differences(result)[1]), "scale byte 0 (row 0): expected 0x7F, actual 0x80; the E8M0 of block (0, 0)");
}

TEST(CaseReplay, WritingARowNoSlotNamesFails) {
  // P = 40: rows 4..31 of the physical buffer are named by no slot.
  const CorpusCase c = one_case("[40, 4]", "{out-dtype: float8_e4m3fn}", "fill: 1", "77*4 ..*28 77", "78*160");
  EXPECT_EQ(replay_case(c, oracle::backend()).outcome, Outcome::kPass);
  const PlantedFault clears_the_gap([](std::uint8_t*, std::uint8_t* scale) { scale[4] = 0; });
  const ReplayResult result = replay_case(c, clears_the_gap);
  ASSERT_EQ(differences(result).size(), 1u);
  EXPECT_EQ(to_string(differences(result)[0]),
            "scale byte 4 (row 4): expected .., actual 0x00; a row no slot names must never be written");
}

TEST(CaseReplay, AByteLeftUnwrittenFails) {
  // The buffers start as the complement of the expected bytes, so skipping a write shows.
  const CorpusCase c = one_case("[8, 4]", "{out-dtype: float8_e4m3fn}", "fill: 256", "7F", "78*32");
  const PlantedFault skips_byte_3([](std::uint8_t* data, std::uint8_t*) { data[3] = static_cast<std::uint8_t>(~0x78); });
  const ReplayResult result = replay_case(c, skips_byte_3);
  EXPECT_EQ(result.outcome, Outcome::kWrongResult);
  EXPECT_EQ(result.comparison.data_differences, 1u);
}

TEST(CaseReplay, ReportsAreCappedButCounted) {
  const CorpusCase c = one_case("[8, 4]", "{out-dtype: float8_e4m3fn}", "fill: 256", "7F", "78*32");
  const PlantedFault zeroes([](std::uint8_t* data, std::uint8_t*) { std::fill(data, data + 32, 0); });
  const ReplayResult result = replay_case(c, zeroes, 3);
  EXPECT_EQ(differences(result).size(), 3u);
  EXPECT_EQ(result.comparison.data_differences, 32u);
}

TEST(CaseReplay, NotSupportedIsItsOwnOutcome) {
  const CorpusCase c = one_case("[8, 4]", "{out-dtype: float8_e4m3fn}", "fill: 256", "7F", "78*32");
  const PlantedFault unsupported([](std::uint8_t*, std::uint8_t*) {}, "no FP8 here");
  const ReplayResult result = replay_case(c, unsupported);
  EXPECT_EQ(result.outcome, Outcome::kUnsupported);
  EXPECT_FALSE(is_failure(result.outcome));
  EXPECT_EQ(result.reason, "no FP8 here");
}

TEST(CaseReplay, AnExceptionIsAFailure) {
  const CorpusCase c = one_case("[8, 4]", "{out-dtype: float8_e4m3fn}", "fill: 256", "7F", "78*32");
  const PlantedFault throws([](std::uint8_t*, std::uint8_t*) { throw std::runtime_error("kernel gave up"); });
  const ReplayResult result = replay_case(c, throws);
  EXPECT_EQ(result.outcome, Outcome::kError);
  EXPECT_TRUE(is_failure(result.outcome));
  EXPECT_EQ(result.reason, "quantize threw: kernel gave up");
}

// A subject in a worker (certify/isolated_subject.h) reports a crash, hang, ... as a SubjectFailure:
// replay keeps its outcome rather than folding it into kError.
TEST(CaseReplay, ASubjectFailureKeepsItsOutcome) {
  const CorpusCase c = one_case("[8, 4]", "{out-dtype: float8_e4m3fn}", "fill: 256", "7F", "78*32");
  const PlantedFault crashes([](std::uint8_t*, std::uint8_t*) { throw SubjectFailure(Outcome::kCrash, "signal 11"); });
  const ReplayResult crashed = replay_case(c, crashes);
  EXPECT_EQ(crashed.outcome, Outcome::kCrash);
  EXPECT_EQ(crashed.reason, "crash: signal 11");
  const PlantedFault hangs([](std::uint8_t*, std::uint8_t*) { throw SubjectFailure(Outcome::kHang, "no answer"); });
  const ReplayResult hung = replay_case(c, hangs);
  EXPECT_EQ(hung.outcome, Outcome::kHang);
  EXPECT_TRUE(is_failure(hung.outcome));
  EXPECT_EQ(hung.reason, "hang: no answer");
}

}  // namespace
}  // namespace mxconform::corpus
