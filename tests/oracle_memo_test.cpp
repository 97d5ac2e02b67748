// The oracle's element memo (oracle/element_memo.h): with it, every configuration gives the bytes
// the exact path alone gives (the memo bypassed), whatever the memo already holds from other
// configurations, profiles and dtypes; and its keys never alias.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "element_memo.h"
#include "mxconform/error.h"
#include "mxconform/profile.h"
#include "oracle.h"

namespace mxconform::oracle {
namespace {

TEST(OracleMemo, KeyFieldsThatDoNotFitAreRefused) {
  EXPECT_THROW(MemoKey().add(2, 1), std::logic_error);
  EXPECT_THROW(MemoKey().add(0x1'0000, 16), std::logic_error);
  EXPECT_THROW(MemoKey().add(0, 40).add(0, 25), std::logic_error);
  EXPECT_NO_THROW(MemoKey().add(1, 1).add(0xFFFF, 16).add(0xFF, 8));
  // The same values in other fields are other keys.
  EXPECT_NE(MemoKey().add(1, 1).add(0, 16).value(), MemoKey().add(0, 1).add(1, 16).value());
  EXPECT_NE(MemoKey().add(0, 1).add(2, 16).value(), MemoKey().add(0, 1).add(1, 16).value());
}

struct Configured {
  QuantizeConfig config;
  std::string label;
};

// Every configuration the oracle admits over these knobs: each profile, input dtype, output dtype,
// EMAX mode and FP8 NaN policy (a 32 x 64 tensor: a whole number of blocks of every shape).
std::vector<Configured> every_configuration() {
  std::vector<Configured> runs;
  for (std::uint32_t p = 0; p < kProfileCount; ++p) {
    for (InputDtype input : {InputDtype::kBfloat16, InputDtype::kFloat16}) {
      for (const OutputDtypeInfo& output : output_dtypes()) {
        for (EmaxMode emax : {EmaxMode::kEmax, EmaxMode::kEmaxMinus1}) {
          for (Fp8NanPolicy nan : {Fp8NanPolicy::kCanonical, Fp8NanPolicy::kZero}) {
            QuantizeConfig config;
            apply_profile(config, static_cast<ProfileId>(p));
            config.input = input;
            config.output = output.id;
            config.partitions = 32;
            config.free = 64;
            config.emax_mode = emax;
            config.fp8_nan = nan;
            try {
              validate(config);
            } catch (const Error&) {
              continue;  // a knob this profile does not admit
            }
            runs.push_back({config, std::string(name(config.profile)) + " " + std::string(name(input)) + " -> " +
                                        std::string(output.name) + (emax == EmaxMode::kEmax ? " EMAX" : " EMAX-1") +
                                        (nan == Fp8NanPolicy::kZero ? " NaN->0" : "")});
          }
        }
      }
    }
  }
  return runs;
}

// Half the rows any 16-bit pattern (NaN, Inf, subnormals, zeros), half values within a few
// binades of one, so that the blocks take many E8M0 bytes and most are finite.
std::vector<std::uint16_t> mixed_input(std::uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<std::uint16_t> input(32 * 64);
  for (std::size_t i = 0; i < input.size(); ++i) {
    const auto bits = static_cast<std::uint16_t>(random());
    input[i] = i < input.size() / 2 ? bits : static_cast<std::uint16_t>((bits & 0x81FF) | 0x3C00);
  }
  return input;
}

std::vector<std::uint8_t> quantized(const QuantizeConfig& config, const std::vector<std::uint16_t>& input, bool bypass) {
  const Geometry g = geometry(config);
  std::vector<std::uint8_t> bytes(g.data_bytes + g.scale_bytes);
  struct Bypass {  // restored even if quantize throws, so later cases use the memo
    explicit Bypass(bool on) { memo_bypassed = on; }
    ~Bypass() { memo_bypassed = false; }
  } bypassed(bypass);
  quantize(config, input.data(), bytes.data(), bytes.data() + g.data_bytes);
  return bytes;
}

TEST(OracleMemo, EveryConfigurationGivesTheExactPathsBytesWhateverTheMemoHolds) {
  const std::vector<Configured> runs = every_configuration();
  ASSERT_GT(runs.size(), 100u);
  const std::vector<std::uint16_t> inputs[] = {mixed_input(1), mixed_input(2)};
  std::vector<std::vector<std::uint8_t>> exact;
  for (const Configured& run : runs) {
    for (const auto& input : inputs) exact.push_back(quantized(run.config, input, true));
  }
  // Forward, then backward: each configuration meets a memo filled by all the others.
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t n = 0; n < runs.size(); ++n) {
      const std::size_t r = pass == 0 ? n : runs.size() - 1 - n;
      for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(quantized(runs[r].config, inputs[i], false), exact[2 * r + i]) << runs[r].label << ", input " << i << ", pass " << pass;
      }
    }
  }
}

}  // namespace
}  // namespace mxconform::oracle
