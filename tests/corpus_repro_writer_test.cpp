// corpus/repro_writer.h: a failing call becomes a corpus file that loads back with the oracle's
// bytes, an id from its content, and is never written over.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "case_replay.h"
#include "corpus_loader.h"
#include "mxconform/error.h"
#include "oracle.h"
#include "repro_writer.h"

namespace mxconform::corpus {
namespace {

namespace fs = std::filesystem;

class ReproWriter : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("corpus_repro_writer_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static QuantizeConfig fp4_config() {
    QuantizeConfig config;
    config.partitions = 16;
    config.free = 8;
    config.output = OutputDtype::kFloat4E2m1fnX4;
    config.emax_mode = EmaxMode::kEmaxMinus1;
    config.fp4_lane_stride = 4;
    config.fp4_high_parity = 0;
    return config;
  }
  static std::vector<std::uint16_t> input(std::size_t n) {
    std::vector<std::uint16_t> bits(n);
    for (std::size_t i = 0; i < n; ++i) bits[i] = static_cast<std::uint16_t>(0x3F00 + 37 * i);  // assorted finite values
    return bits;
  }

  fs::path dir_;
};

TEST_F(ReproWriter, WritesACaseThatLoadsBackWithTheOraclesBytes) {
  const QuantizeConfig config = fp4_config();
  const std::string path = write_repro_case(config, input(128), "ties_to_even", 1234, dir_.string());
  EXPECT_EQ(fs::path(path).parent_path(), dir_);
  const std::vector<CorpusCase> cases = load_corpus_file(path);
  ASSERT_EQ(cases.size(), 1u);
  const CorpusCase& c = cases[0];
  EXPECT_EQ(path, (dir_ / (c.id + ".yaml")).string());
  EXPECT_EQ(c.id.rfind("repro.ties_to_even.", 0), 0u);
  EXPECT_NE(c.why.find("ties_to_even"), std::string::npos);
  EXPECT_NE(c.why.find("1234"), std::string::npos);
  EXPECT_EQ(c.source, "property suite: ties_to_even, seed 1234");
  EXPECT_EQ(c.tags, std::vector<std::string>{"repro"});
  EXPECT_EQ(describe(c.config), describe(config));
  EXPECT_EQ(c.input, input(128));
  EXPECT_EQ(replay_case(c, oracle::backend()).outcome, Outcome::kPass);
  // P = 16 is two groups: the physical buffer has 2 rows (both named) of F/4 = 2 bytes.
  EXPECT_EQ(c.scale.size(), 4u);
}

TEST_F(ReproWriter, TheIdComesFromTheContent) {
  const QuantizeConfig config = fp4_config();
  const CorpusCase first = make_repro_case(config, input(128), "p", 1);
  EXPECT_EQ(make_repro_case(config, input(128), "p", 99).id, first.id);  // the seed is not content
  std::vector<std::uint16_t> other = input(128);
  other[5] ^= 1;
  EXPECT_NE(make_repro_case(config, other, "p", 1).id, first.id);
  QuantizeConfig knob = config;
  knob.fp4_high_parity = 1;
  EXPECT_NE(make_repro_case(knob, input(128), "p", 1).id, first.id);
  EXPECT_EQ(make_repro_case(config, input(128), "odd name/with spaces", 1).id.rfind("repro.odd-name-with-spaces.", 0), 0u);
}

TEST_F(ReproWriter, NeverOverwrites) {
  const QuantizeConfig config = fp4_config();
  const std::string path = write_repro_case(config, input(128), "p", 1, dir_.string());
  std::ofstream(path, std::ios::trunc) << "# edited by a reviewer\n";
  EXPECT_EQ(write_repro_case(config, input(128), "p", 2, dir_.string()), path);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "# edited by a reviewer\n");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 1u);  // no temporary file left behind
}

TEST_F(ReproWriter, DirectoryFromTheEnvironment) {
  ::setenv("MXCONFORM_REPRO_DIR", dir_.c_str(), 1);
  EXPECT_EQ(repro_directory(), dir_.string());
  EXPECT_EQ(repro_directory("/elsewhere"), "/elsewhere");
  QuantizeConfig config;
  config.partitions = 40;
  config.free = 4;
  const std::string path = write_repro_case(config, std::vector<std::uint16_t>(160, 0x3F80), "p", 7);
  ::unsetenv("MXCONFORM_REPRO_DIR");
  EXPECT_EQ(fs::path(path).parent_path(), dir_);
  const CorpusCase c = load_corpus_file(path).at(0);
  EXPECT_EQ(c.scale.size(), 33u);  // slot(4) + 1 rows; 28 of them never written
  EXPECT_EQ(std::count(c.scale.begin(), c.scale.end(), std::nullopt), 28);
  EXPECT_NE(repro_directory().find("corpus-repros"), std::string::npos);
}

TEST_F(ReproWriter, RefusesAnInvalidCall) {
  QuantizeConfig config;
  config.partitions = 12;
  config.free = 4;
  EXPECT_THROW(write_repro_case(config, std::vector<std::uint16_t>(48), "p", 1, dir_.string()), Error);
  config.partitions = 8;
  EXPECT_THROW(write_repro_case(config, std::vector<std::uint16_t>(31), "p", 1, dir_.string()), Error);
}

// A repro the loader would refuse is never written: [8, 9408] is above its 4096 per dimension.
TEST_F(ReproWriter, NeverWritesACaseItsLoaderWouldRefuse) {
  QuantizeConfig config;
  config.partitions = 8;
  config.free = 9408;
  try {
    write_repro_case(config, input(8 * 9408), "certify-exhaustive", 1, dir_.string());
    FAIL() << "wrote a repro of shape [8, 9408]";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("[8, 9408], above the corpus loader's limits"), std::string::npos) << error.what();
  }
  EXPECT_FALSE(fs::exists(dir_) && !fs::is_empty(dir_)) << "nothing written";
  config.free = kMaxExtent;  // at the limit: written, and it loads
  config.partitions = kMaxElementsPerCase / kMaxExtent;
  const std::string path = write_repro_case(config, input(kMaxElementsPerCase), "p", 1, dir_.string());
  EXPECT_EQ(load_corpus({path}).size(), 1u);
}

}  // namespace
}  // namespace mxconform::corpus
