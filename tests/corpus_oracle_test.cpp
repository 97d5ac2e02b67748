// Every expectation of the corpus (corpus/cases/) against the oracle, and what the corpus must
// cover (the corpus issue, point 3).
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "byte_syntax.h"
#include "corpus_loader.h"
#include "mxconform/scale_layout.h"
#include "oracle.h"

namespace mxconform::corpus {
namespace {

const std::vector<CorpusCase>& corpus() {
  static const std::vector<CorpusCase> kCases = load_corpus({MXCONFORM_CORPUS_DIR});
  return kCases;
}

TEST(CorpusOracle, EveryExpectationIsTheOracles) {
  for (const CorpusCase& c : corpus()) {
    const Geometry g = geometry(c.config);
    std::vector<std::uint8_t> data(g.data_bytes);
    std::vector<std::uint8_t> scale(g.scale_bytes, 0);
    oracle::quantize(c.config, c.input.data(), data.data(), scale.data());
    ASSERT_EQ(c.data.size(), data.size()) << c.id;
    for (std::size_t i = 0; i < data.size(); ++i) {
      EXPECT_EQ(c.data[i], ExpectedByte(data[i])) << c.id << " (" << to_string(c.location) << ") data byte " << i;
    }
    // The oracle writes the rows a slot names; the case marks every other row never written.
    std::vector<bool> named(g.scale_rows, c.config.scale_layout == ScaleLayout::kLogical);
    if (c.config.scale_layout == ScaleLayout::kPhysical) {
      for (std::size_t i = 0; i < g.block_rows; ++i) named[oracle::physical_scale_row(i)] = true;
    }
    for (std::size_t i = 0; i < scale.size(); ++i) {
      const ExpectedByte oracle_byte = named[i / g.block_cols] ? ExpectedByte(scale[i]) : std::nullopt;
      EXPECT_EQ(c.scale[i], oracle_byte) << c.id << " (" << to_string(c.location) << ") scale byte " << i;
    }
  }
}

TEST(CorpusOracle, AtLeastEightyCasesWithReasons) {
  EXPECT_GE(corpus().size(), 80u);
  for (const CorpusCase& c : corpus()) {
    EXPECT_GE(c.why.size(), 40u) << c.id << ": a why says what the case pins";
    EXPECT_FALSE(c.source.empty()) << c.id;
  }
}

// What the corpus issue lists, by tag or by configuration.
TEST(CorpusOracle, CoversTheIssuesList) {
  std::map<std::string, int> tags;
  std::set<std::pair<std::uint32_t, int>> strides_and_parities;
  std::set<std::size_t> physical_partitions;
  std::set<OutputDtype> outputs;
  bool f16_subnormal = false;
  for (const CorpusCase& c : corpus()) {
    for (const std::string& tag : c.tags) ++tags[tag];
    outputs.insert(c.config.output);
    if (is_fp4(c.config.output)) strides_and_parities.insert({c.config.fp4_lane_stride, c.config.fp4_high_parity});
    if (c.config.scale_layout == ScaleLayout::kPhysical) physical_partitions.insert(c.config.partitions);
    f16_subnormal |= c.config.input == InputDtype::kFloat16 &&
                     std::any_of(c.input.begin(), c.input.end(), [](std::uint16_t bits) {
                       return (bits & Float16::kExponentMask) == 0 && (bits & Float16::kMantissaMask) != 0;
                     });
  }
  for (const char* tag : {"gotcha", "quirk", "clamp", "zero-floor", "multiplier", "tie", "subnormal", "saturation", "nan",
                          "inf", "emax-1", "nan-policy", "lanes", "scale-layout", "x4", "f16", "other-quantizers"}) {
    EXPECT_GT(tags[tag], 0) << "no case tagged " << tag;
  }
  EXPECT_GE(tags["other-quantizers"], 8);
  for (std::uint32_t stride : {1u, 2u, 4u, 8u}) {
    for (int parity : {0, 1}) EXPECT_TRUE(strides_and_parities.count({stride, parity})) << "stride " << stride << " parity " << parity;
  }
  for (std::size_t p = 8; p <= 128; p += 8) EXPECT_TRUE(physical_partitions.count(p)) << "P = " << p;
  for (const OutputDtypeInfo& dtype : output_dtypes()) EXPECT_TRUE(outputs.count(dtype.id)) << dtype.name;
  EXPECT_TRUE(f16_subnormal);
}

}  // namespace
}  // namespace mxconform::corpus
