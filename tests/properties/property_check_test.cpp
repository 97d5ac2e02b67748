// property_check.cpp: a failure shrinks and carries its repro and reproduce string, shrinking stops
// at its time budget, a promised coverage class that no case hits fails the run, and the outcome
// says which kind of run it was (a broken property, the subject's own error, not supported).
#include "property_check.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <unordered_map>

#include <rapidcheck/detail/Configuration.h>

#include "input_value.h"
#include "mxconform/error.h"
#include "mxconform/registry.h"

namespace mxconform::properties {
namespace {

const Subject& scalar() { return *find_built_in("scalar"); }

CaseSpace small_space() {
  CaseSpace space;
  space.outputs = {OutputDtype::kFloat8E4m3fn};
  space.max_block_rows = 4;
  space.max_block_cols = 8;
  return space;
}

std::size_t nans(const QuantizeCase& c) {
  std::size_t count = 0;
  for (std::uint16_t bits : c.input) count += is_nan(c.config.input, bits);
  return count;
}

// "No input is NaN": false for any case that holds one.
Property<QuantizeCase> no_nan_property() {
  Property<QuantizeCase> property("no NaN", "no input element is NaN", quantize_cases(small_space()));
  property.check = [](const QuantizeCase& c) {
    if (nans(c) == 0) return;
    const Outputs out = quantize(scalar(), c);
    fail_with(Repro{"no NaN", "scalar", "no NaN", "", c.config, c.input, out, out}, "a NaN");
  };
  property.base = [](const QuantizeCase& c) -> const QuantizeCase& { return c; };
  return property;
}

TEST(PropertyCheck, AFailureShrinksToOneBlockAndKeepsItsRepro) {
  const PropertyOutcome outcome = run_property(no_nan_property(), scalar(), RunSettings{}, "PropertyCheck.Shrink");
  ASSERT_EQ(outcome.outcome, Outcome::kWrongResult);
  EXPECT_TRUE(outcome.failed());
  ASSERT_TRUE(outcome.repro.has_value());
  EXPECT_FALSE(outcome.shrink_budget_hit);
  EXPECT_FALSE(outcome.reproduce.empty());
  EXPECT_EQ(outcome.message, "a NaN") << "no '[the reproduce reconstruction disagrees]'";
  const QuantizeCase shrunk{outcome.repro->config, outcome.repro->input};
  EXPECT_EQ(shrunk.config.partitions * shrunk.config.free, kBlockSize);
  EXPECT_EQ(nans(shrunk), 1u);
  EXPECT_EQ(shrunk.config.fp4_lane_stride, 0u);
  EXPECT_NE(outcome.report().find("reproduce RC_PARAMS=\"reproduce="), std::string::npos);
}

TEST(PropertyCheck, ShrinkingStopsAtItsBudget) {
  Property<QuantizeCase> slow = no_nan_property();
  const auto check = slow.check;
  slow.check = [check](const QuantizeCase& c) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    check(c);
  };
  RunSettings settings;
  settings.shrink_seconds = 0.1;
  const PropertyOutcome outcome = run_property(slow, scalar(), settings, "PropertyCheck.ShrinkingStopsAtItsBudget");
  std::fputs(outcome.report().c_str(), stdout);
  ASSERT_EQ(outcome.outcome, Outcome::kWrongResult);
  EXPECT_TRUE(outcome.shrink_budget_hit);
  ASSERT_TRUE(outcome.repro.has_value());
  EXPECT_GT(nans({outcome.repro->config, outcome.repro->input}), 0u) << "the case kept still fails";
  EXPECT_NE(outcome.report().find("may not be minimal"), std::string::npos);
  EXPECT_FALSE(outcome.reproduce.empty()) << "rebuilt from the search and the accepted shrinks";
  EXPECT_LT(outcome.seconds, 10.0) << "shrinking ends at its budget, not after every remaining try";
}

TEST(PropertyCheck, APromisedClassThatNoCaseHitsFailsTheRun) {
  Property<QuantizeCase> holds("holds", "always", quantize_cases(small_space()));
  holds.check = [](const QuantizeCase&) {};
  holds.base = [](const QuantizeCase& c) -> const QuantizeCase& { return c; };
  holds.promised = {CoverageClass::kSingleBlock, CoverageClass::kLargestShape};  // 32x32 never reaches 128x512
  holds.gate_cases = 20;
  const PropertyOutcome outcome = run_property(holds, scalar(), RunSettings{}, "PropertyCheck.Coverage");
  EXPECT_EQ(outcome.outcome, Outcome::kPass);
  EXPECT_FALSE(outcome.failed());
  EXPECT_EQ(outcome.passed_cases, 20);
  EXPECT_EQ(outcome.missed, std::vector<CoverageClass>{CoverageClass::kLargestShape});
  EXPECT_FALSE(outcome.passed());
}

// The scalar kernel, but declaring every configuration unsupported, or throwing from quantize.
class Refusing final : public Subject {
 public:
  explicit Refusing(bool throws) : throws_(throws) {}
  std::string_view name() const override { return "refusing"; }
  std::string_view description() const override { return "unsupported everywhere, or throws"; }
  CpuFeatures required_features() const override { return {}; }
  std::string unsupported_reason(const QuantizeConfig&) const override { return throws_ ? "" : "nothing here"; }
  void quantize(const QuantizeConfig& config, const std::uint16_t* input, std::uint8_t* data,
                std::uint8_t* scale) const override {
    if (throws_) throw Error("kernel gave up");
    scalar().quantize(config, input, data, scale);
  }
  void dequantize(const QuantizeConfig& config, const std::uint8_t* data, const std::uint8_t* scale,
                  float* output) const override {
    scalar().dequantize(config, data, scale, output);
  }

 private:
  bool throws_;
};

Property<QuantizeCase> runs_the_subject(const Subject& subject) {
  Property<QuantizeCase> property("runs", "the subject quantizes", quantize_cases(small_space()));
  property.check = [&subject](const QuantizeCase& c) { quantize(subject, c); };
  property.base = [](const QuantizeCase& c) -> const QuantizeCase& { return c; };
  property.gate_cases = 10;
  return property;
}

TEST(PropertyCheck, ASubjectThatSupportsNoCaseIsNotSupportedNeitherPassNorFail) {
  const Refusing refusing(false);
  const PropertyOutcome outcome =
      run_property(runs_the_subject(refusing), refusing, RunSettings{}, "PropertyCheck.NotSupported");
  EXPECT_EQ(outcome.outcome, Outcome::kUnsupported);
  EXPECT_GT(outcome.unsupported_cases, 0);
  EXPECT_EQ(outcome.passed_cases, 0);
  EXPECT_FALSE(outcome.passed());
  EXPECT_FALSE(outcome.failed());
  EXPECT_NE(outcome.report().find("not supported by refusing"), std::string::npos) << outcome.report();
}

TEST(PropertyCheck, ASubjectThatThrowsIsAnErrorNotAWrongResult) {
  const Refusing throws(true);
  const PropertyOutcome outcome = run_property(runs_the_subject(throws), throws, RunSettings{}, "PropertyCheck.Throws");
  EXPECT_EQ(outcome.outcome, Outcome::kError);
  EXPECT_TRUE(outcome.failed());
  EXPECT_NE(outcome.message.find("kernel gave up"), std::string::npos) << outcome.message;
}

}  // namespace
}  // namespace mxconform::properties

namespace mxconform::properties {
namespace {

// reproduce_string is read back by RapidCheck itself: RC_PARAMS is set before RapidCheck first
// reads its configuration (this test runs in a process of its own under ctest), and the
// failures RapidCheck then asks to reproduce are those encoded. The ids have every length from 0
// to 11, so the last character holds 2, 4 or 6 bits, and the entries together use every one of
// the 64 characters.
TEST(ReproduceString, RapidCheckParsesItBackThroughRcParams) {
  std::unordered_map<std::string, rc::detail::Reproduce> failures;
  std::uint64_t seed = 0x9E37'79B9'7F4A'7C15;
  for (int i = 0; i < 12; ++i) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    std::vector<std::size_t> path;
    for (int j = 0; j < i; ++j) path.push_back(static_cast<std::size_t>((seed >> (j * 5)) & 0xFFFF));
    std::string id(static_cast<std::size_t>(i), 'x');
    for (int j = 0; j < i; ++j) id[static_cast<std::size_t>(j)] = static_cast<char>(' ' + ((seed >> (3 * j)) % 95));
    failures[id + "#" + std::to_string(i)] = rc::detail::Reproduce{rc::Random(seed), i * 9, path};
  }
  const std::string text = reproduce_string(failures);
  for (const char c : std::string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+_")) {
    EXPECT_NE(text.find(c), std::string::npos) << "character '" << c << "' never used: add entries";
  }
  ASSERT_EQ(::setenv("RC_PARAMS", ("reproduce=" + text).c_str(), 1), 0);
  const auto& parsed = rc::detail::configuration().reproduce;
  ::unsetenv("RC_PARAMS");
  EXPECT_EQ(parsed, failures) << text;
}

}  // namespace
}  // namespace mxconform::properties
