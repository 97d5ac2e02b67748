// sweep_cases.cpp: the E8M0 sweep meets every E8M0 a finite block can get, by the oracle's own
// scale rule applied to every finite input code (not by the generator's layout); the large tensor
// has more block rows than 128 partitions give and a 4-column tail; both are valid and seeded.
#include "sweep_cases.h"

#include <set>

#include <gtest/gtest.h>

#include "mxconform/dtype.h"
#include "mxconform/quantize_config.h"
#include "oracle.h"

namespace mxconform::properties {
namespace {

std::vector<QuantizeConfig> neuron_configurations() {
  std::vector<QuantizeConfig> out;
  for (InputDtype input : {InputDtype::kBfloat16, InputDtype::kFloat16}) {
    for (const OutputDtypeInfo& dtype : output_dtypes()) {
      for (EmaxMode mode : {EmaxMode::kEmax, EmaxMode::kEmaxMinus1}) {
        QuantizeConfig c;
        c.input = input;
        c.output = dtype.id;
        c.emax_mode = mode;
        out.push_back(c);
      }
    }
  }
  return out;
}

// Every E8M0 a block whose largest magnitude is a nonzero finite input code gets: the oracle's
// block_e8m0 of that code's fp32 exponent field, over all 2^15 positive codes.
std::set<int> finite_block_e8m0(const QuantizeConfig& config) {
  const FormatInfo format = input_format(config.input);
  std::set<int> out;
  for (std::uint32_t code = 1; code <= format.magnitude_mask; ++code) {
    const oracle::Value value = oracle::decode(format, code);
    if (value.is_finite()) out.insert(oracle::block_e8m0(oracle::fp32_exponent_field(value), config));
  }
  return out;
}

TEST(E8m0Sweep, MeetsEveryE8m0AFiniteBlockCanGet) {
  for (const QuantizeConfig& config : neuron_configurations()) {
    SCOPED_TRACE(describe(config));
    const QuantizeCase c = e8m0_sweep_case(config, 11);
    ASSERT_NO_THROW(validate(c.config));
    const Geometry g = geometry(c.config);
    std::vector<std::uint8_t> data(g.data_bytes), scale(g.scale_bytes);
    oracle::quantize(c.config, c.input.data(), data.data(), scale.data());
    const std::set<int> met(scale.begin(), scale.end());
    for (int e8m0 : finite_block_e8m0(config)) EXPECT_EQ(met.count(e8m0), 1u) << "E8M0 " << e8m0 << " never met";
  }
}

TEST(LargeTensor, HasMoreBlockRowsThan128PartitionsAndATail) {
  for (const QuantizeConfig& config : neuron_configurations()) {
    const QuantizeCase c = large_tensor_case(config, 5);
    ASSERT_NO_THROW(validate(c.config));
    EXPECT_GT(c.config.partitions, 128u);
    EXPECT_EQ(c.config.free % 32, 4u);
    EXPECT_EQ(c.input.size(), c.config.partitions * c.config.free);
  }
}

TEST(SweepCases, ASeedFixesThemAndAnotherSeedChangesThem) {
  QuantizeConfig config;
  EXPECT_EQ(e8m0_sweep_case(config, 3), e8m0_sweep_case(config, 3));
  EXPECT_NE(e8m0_sweep_case(config, 3).input, e8m0_sweep_case(config, 4).input);
  EXPECT_EQ(large_tensor_case(config, 3), large_tensor_case(config, 3));
  EXPECT_NE(large_tensor_case(config, 3).input, large_tensor_case(config, 4).input);
}

}  // namespace
}  // namespace mxconform::properties
