// class_cases.cpp: for every configuration, the single-block cases hit every promised class, as
// the coverage classifier counts them; and the new block classes are classified from hand-made
// blocks.
#include "class_cases.h"

#include <gtest/gtest.h>

#include <string>

#include "mxconform/dtype.h"

namespace mxconform::properties {
namespace {

std::vector<QuantizeConfig> every_configuration() {
  std::vector<QuantizeConfig> out;
  for (InputDtype input : {InputDtype::kBfloat16, InputDtype::kFloat16}) {
    for (const OutputDtypeInfo& dtype : output_dtypes()) {
      for (EmaxMode mode : {EmaxMode::kEmax, EmaxMode::kEmaxMinus1}) {
        for (Fp8NanPolicy policy : {Fp8NanPolicy::kCanonical, Fp8NanPolicy::kZero}) {
          QuantizeConfig c;
          c.input = input;
          c.output = dtype.id;
          c.emax_mode = mode;
          c.fp8_nan = policy;
          c.fp4_lane_stride = is_fp4(dtype.id) ? 8 : 0;
          out.push_back(c);
        }
      }
    }
  }
  return out;
}

TEST(ClassCases, EveryPromisedClassIsHitForEveryConfiguration) {
  for (const QuantizeConfig& config : every_configuration()) {
    for (std::uint64_t seed : {1u, 7u, 20261203u}) {
      const std::vector<QuantizeCase> cases = class_cases(config, seed);
      Coverage coverage;
      for (const QuantizeCase& c : cases) {
        ASSERT_EQ(c.config.partitions, kBlockRows);
        ASSERT_EQ(c.config.free, kBlockCols);
        ASSERT_EQ(c.input.size(), kBlockSize);
        EXPECT_EQ(c.config.output, config.output);
        EXPECT_EQ(c.config.emax_mode, config.emax_mode);
        coverage.add(c);
      }
      const auto missed = coverage.missed(promised_classes(config));
      std::string names;
      for (CoverageClass id : missed) names += std::string(name(id)) + "; ";
      EXPECT_TRUE(missed.empty()) << describe(config) << " seed " << seed << ": " << names;
      EXPECT_LE(cases.size(), 24u) << describe(config) << ": more class cases than a gate configuration runs";
    }
  }
}

TEST(ClassCases, SameSeedSameCases) {
  QuantizeConfig config;
  config.output = OutputDtype::kFloat8E4m3fn;
  EXPECT_EQ(class_cases(config, 3), class_cases(config, 3));
}

TEST(ClassCases, PromiseFollowsWhatTheConfigurationCanReach) {
  QuantizeConfig config;
  config.output = OutputDtype::kFloat4E2m1fnX4;
  config.emax_mode = EmaxMode::kEmaxMinus1;
  const auto fp4_minus1 = promised_classes(config);
  const auto has = [](const std::vector<CoverageClass>& v, CoverageClass id) {
    return std::find(v.begin(), v.end(), id) != v.end();
  };
  EXPECT_TRUE(has(fp4_minus1, CoverageClass::kInfTimesZero));
  EXPECT_FALSE(has(fp4_minus1, CoverageClass::kInfSaturates));
  EXPECT_FALSE(has(fp4_minus1, CoverageClass::kRoundsUpToSaturate));  // y < 4 < 6 in EMAX-1 mode
  config.input = InputDtype::kFloat16;
  config.emax_mode = EmaxMode::kEmax;
  const auto fp4_f16 = promised_classes(config);
  EXPECT_FALSE(has(fp4_f16, CoverageClass::kZeroFloorBlock));  // float16 fields start at 103
  EXPECT_TRUE(has(fp4_f16, CoverageClass::kFloat16SubnormalOnlyBlock));
  EXPECT_TRUE(has(fp4_f16, CoverageClass::kRoundsUpToSaturate));
}

// Hand-made blocks, bfloat16 bits: 0x7FC0 quiet NaN, 0x7F80 +Inf, 0x8000 -0, 0x0001 the smallest
// denormal, 0x3F80 1.0.
QuantizeCase block_of(std::initializer_list<std::uint16_t> bits) {
  QuantizeCase c;
  c.config.partitions = kBlockRows;
  c.config.free = kBlockCols;
  c.input.assign(bits);
  c.input.resize(kBlockSize, 0);
  return c;
}

std::size_t hits(const QuantizeCase& c, CoverageClass id) {
  Coverage coverage;
  coverage.add(c);
  return coverage.cases_hitting(id);
}

TEST(ClassCases, NewBlockClassesAreClassifiedFromTheInput) {
  EXPECT_EQ(hits(block_of({0x8000, 0x7FC0}), CoverageClass::kZeroBlockWithOneNan), 1u);
  EXPECT_EQ(hits(block_of({0x7FC0, 0x7FC0}), CoverageClass::kZeroBlockWithOneNan), 0u);  // two NaNs
  EXPECT_EQ(hits(block_of({0x3F80, 0x7FC0}), CoverageClass::kZeroBlockWithOneNan), 0u);  // a non-zero
  EXPECT_EQ(hits(block_of({0xFF80}), CoverageClass::kZeroBlockWithOneInf), 1u);
  EXPECT_EQ(hits(block_of({0xFF80, 0x7FC0}), CoverageClass::kNanAndInfBlock), 1u);
  EXPECT_EQ(hits(block_of({0xFF80, 0x7FC0}), CoverageClass::kZeroBlockWithOneInf), 0u);
  EXPECT_EQ(hits(block_of({0x0001, 0x8003}), CoverageClass::kBfloat16DenormalOnlyBlock), 1u);
  EXPECT_EQ(hits(block_of({0x0001, 0x3F80}), CoverageClass::kBfloat16DenormalOnlyBlock), 0u);
  EXPECT_EQ(hits(block_of({}), CoverageClass::kBfloat16DenormalOnlyBlock), 0u);  // all zeros
}

}  // namespace
}  // namespace mxconform::properties
