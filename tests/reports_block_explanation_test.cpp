// reports/block_explanation.h: the explanation states each step's numbers and reasons.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "block_explanation.h"
#include "case_replay.h"
#include "corpus_loader.h"
#include "mxconform/error.h"
#include "oracle.h"
#include "repro_writer.h"

namespace mxconform::reports {

using namespace corpus;
namespace {

const CorpusCase& corpus_case(const std::string& id) {
  static const std::vector<CorpusCase> kCases = load_corpus({MXCONFORM_CORPUS_DIR});
  for (const CorpusCase& c : kCases) {
    if (c.id == id) return c;
  }
  throw std::logic_error("no corpus case " + id);
}

std::string explain(const CorpusCase& c, std::size_t group = 0, std::size_t column_block = 0,
                    const Subject* subject = nullptr, bool colour = false) {
  ExplainRequest request;
  request.config = c.config;
  request.input = c.input;
  request.group = group;
  request.column_block = column_block;
  request.corpus_case = &c;
  request.subject = subject;
  request.colour = colour;
  return explain_block(request);
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "missing: " << part << "\n--- in ---\n" << text;
}

TEST(Explain, TieSaysWhichWayAndWhy) {
  const std::string text = explain(corpus_case("fp4.tie.2.5-to-2"));
  expect_contains(text, "case     fp4.tie.2.5-to-2");
  expect_contains(text, "block max exponent field: 129");
  expect_contains(text, "129 - 2 = 127: no clamp");
  expect_contains(text, "E8M0 = 127 (scale 2^0); the case expects it");
  expect_contains(text, "(254 - 127) << 23 = 0x3F800000 = 1");
  expect_contains(text, "   1  2.5        2.5            2 (0x4)      3 (0x5)      0x4   tie: to the even code 0x4");
  expect_contains(text, "   2  -2.5       -2.5           2 (0x4)      3 (0x5)      0xC   tie: to the even code 0x4");
  expect_contains(text, "nearer below");
  expect_contains(text, "nearer above");
  EXPECT_EQ(text.find('\033'), std::string::npos) << "no colour unless asked";
}

TEST(Explain, ClampsAndDenormals) {
  const std::string text = explain(corpus_case("scale.denormal-field-zero.bf16"));
  expect_contains(text, "fp32 denormal: field 0");
  expect_contains(text, "0 - 8 = -8: -8 < 0: CLAMP-LOW to 0, then ZERO-FLOOR to 1");
  expect_contains(text, "(254 - 1) << 23 = 0x7E800000 = 2^126");
  const std::string floor_only = explain(corpus_case("scale.zero-floor-only.e4m3"));
  expect_contains(floor_only, "8 - 8 = 0: 0: ZERO-FLOOR to 1");
}

TEST(Explain, SaturationAndNan) {
  const std::string saturation = explain(corpus_case("fp4.saturate.rounds-up-past-6"));
  expect_contains(saturation, "would round up past the max 6: saturates");
  const std::string nan = explain(corpus_case("e4m3.nan.zero"));
  expect_contains(nan, "Inf/NaN: field 255");
  expect_contains(nan, "255 - 8 = 247: no clamp");
  expect_contains(nan, "NaN: a signed zero (fp8-nan zero)");
  expect_contains(explain(corpus_case("e4m3.nan.canonical")), "NaN: sign|0x7F (fp8-nan canonical)");
  expect_contains(explain(corpus_case("fp4.nan-to-signed-zero")), "NaN: FP4 has no NaN, gives a signed zero");
  expect_contains(explain(corpus_case("e5m2.inf-block-saturates")), "Inf: saturates to the signed max 57344");
}

TEST(Explain, TheZeroMultiplierOfE8m0Of254) {
  const std::string text = explain(corpus_case("emax-1.fp4.inf-block-multiplier-zero"));
  expect_contains(text, "(254 - 254) << 23 = 0x00000000 = 0  (+0.0: E8M0 254, the edge of docs/contract.md step 4)");
  expect_contains(text, "-nan (Inf*0)");
}

TEST(Explain, PackingWithALaneStrideAndTheScaleSlot) {
  const std::string lanes = explain(corpus_case("fp4.lanes.stride-2.parity-0"));
  expect_contains(lanes, "position r = lane_remap(k, 2)");
  // Parity 0: position 0 (element 2) is the HIGH nibble of byte 0, position 1 (element 3) the low one.
  expect_contains(lanes, "   0  element 3 = 0x3   element 2 = 0x2   0x23");
  const std::string slots = explain(corpus_case("scale-layout.physical.p40"), 4, 0);
  expect_contains(slots, "logical row 4 -> physical row slot(4) = (g & 3) + 32 * (g >> 2) = 32");
  expect_contains(slots, "scale byte 32 = row * F/4 + c = 0x7B (123)");
  expect_contains(explain(corpus_case("f16.subnormal-widens-to-normal.e4m3")), "float16 subnormal: an fp32 normal");
}

// A planted fault: the oracle, but ignoring the FP4 lane stride.
class NoLaneRemap final : public Subject {
 public:
  std::string_view name() const override { return "no-remap"; }
  std::string_view description() const override { return "ignores the lane stride"; }
  CpuFeatures required_features() const override { return {}; }
  void quantize(const QuantizeConfig& config, const std::uint16_t* input, std::uint8_t* data,
                std::uint8_t* scale) const override {
    QuantizeConfig plain = config;
    plain.fp4_lane_stride = 0;
    oracle::quantize(plain, input, data, scale);
  }
  void dequantize(const QuantizeConfig&, const std::uint8_t*, const std::uint8_t*, float*) const override {}
};

TEST(Explain, ASubjectsDifferencesAreMarked) {
  const CorpusCase& c = corpus_case("fp4.lanes.stride-2.parity-1");
  const NoLaneRemap subject;
  EXPECT_EQ(first_differing_block(c, subject), (std::pair<std::size_t, std::size_t>{0, 0}));
  const std::string text = explain(c, 0, 0, &subject);
  expect_contains(text, "subject  no-remap");
  expect_contains(text, "0x0 DIFFERS");
  expect_contains(text, "the subject wrote it");
  const std::string coloured = explain(c, 0, 0, &subject, true);
  expect_contains(coloured, "\033[1;31m0x0 DIFFERS\033[0m");
}

// The corpus issue's "done when": a planted fault's repro file fails replay, and explain shows where.
TEST(Explain, APlantedFaultsReproFailsReplayAndIsExplained) {
  QuantizeConfig config;
  config.partitions = 16;
  config.free = 8;
  config.output = OutputDtype::kFloat4E2m1fnX4;
  config.fp4_lane_stride = 8;
  std::vector<std::uint16_t> input(config.partitions * config.free);
  for (std::size_t k = 0; k < input.size(); ++k) input[k] = static_cast<std::uint16_t>(0x3F00 + (k % 16) * 8);
  const auto dir = std::filesystem::temp_directory_path() / ("corpus_explain_test_" + std::to_string(::getpid()));
  const std::string path = write_repro_case(config, input, "fp4_packing", 42, dir.string());
  const CorpusCase repro = load_corpus_file(path).at(0);
  const NoLaneRemap subject;
  const ReplayResult result = replay_case(repro, subject);
  EXPECT_EQ(result.outcome, Outcome::kWrongResult);
  EXPECT_EQ(replay_case(repro, oracle::backend()).outcome, Outcome::kPass);
  ExplainRequest request;
  request.config = repro.config;
  request.input = repro.input;
  request.corpus_case = &repro;
  request.subject = &subject;
  std::tie(request.group, request.column_block) = first_differing_block(repro, subject);
  const std::string text = explain_block(request);
  expect_contains(text, "case     " + repro.id);
  expect_contains(text, "property suite: fp4_packing, seed 42");
  expect_contains(text, "DIFFERS");
  std::filesystem::remove_all(dir);
}

TEST(Explain, RefusesABlockOutsideTheTensor) {
  const CorpusCase& c = corpus_case("fp4.tie.2.5-to-2");
  EXPECT_THROW(explain(c, 1, 0), Error);
  EXPECT_THROW(explain(c, 0, 1), Error);
}

}  // namespace
}  // namespace mxconform::reports
