// The element path, exhaustively: for each input dtype, element format, EMAX mode and FP8 NaN
// policy, every 16-bit input pattern at every E8M0 a block could give it, through each compiled
// implementation's real kernel (one this CPU cannot run is skipped, with the reason), against the
// oracle's narrow of the prescaled value (certify/exhaustive_campaign.h builds the tensors). The oracle's own exact prescale is checked
// against the x86 multiply on a sample of E8M0 values.
#include <cctype>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "exhaustive_campaign.h"
#include "mxconform/registry.h"
#include "oracle.h"
#include "subject_from_environment.h"

namespace mxconform {
namespace {

std::uint32_t to_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float multiplier(int e8m0) {
  const std::uint32_t bits = static_cast<std::uint32_t>(254 - e8m0) << 23;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// Every compiled implementation but the oracle; one that this CPU cannot run is skipped with the
// reason, never passed silently. When MXCONFORM_SUBJECT names a plug-in (ctest names the
// avx512-simde one), only it.
std::vector<const Subject*> subjects() {
  std::vector<const Subject*> out;
  if (const Subject* plugin = testing_support::subject_from_environment()) return {plugin};
  for (const Subject* impl : built_in_subjects()) {
    if (impl != &oracle::backend()) out.push_back(impl);
  }
  return out;
}

class ExhaustiveElements : public ::testing::TestWithParam<std::tuple<const Subject*, OutputDtype>> {};

TEST_P(ExhaustiveElements, EveryPatternAtEveryReachableE8m0) {
  const auto [subject, output] = GetParam();
  if (!runnable_here(*subject)) GTEST_SKIP() << subject->name() << ": " << not_runnable_reason(*subject);
  std::vector<Fp8NanPolicy> policies = {Fp8NanPolicy::kCanonical};
  if (!is_fp4(output)) policies.push_back(Fp8NanPolicy::kZero);
  for (Fp8NanPolicy policy : policies) {
    std::size_t elements = 0, tensors = 0, distinct = 0;
    for (InputDtype input : {InputDtype::kBfloat16, InputDtype::kFloat16}) {
      for (EmaxMode mode : {EmaxMode::kEmax, EmaxMode::kEmaxMinus1}) {
        certify::ExhaustiveCampaign campaign(input, output, mode, policy);
        for (int e8m0 : campaign.reachable_e8m0()) {
          for (const certify::ExhaustiveTensor& t : campaign.tensors(e8m0)) {
            const Geometry g = geometry(t.config);
            std::vector<std::uint8_t> data(g.data_bytes), scale(g.scale_bytes);
            subject->quantize(t.config, t.input.data(), data.data(), scale.data());
            ASSERT_EQ(scale, t.expected_scale)
                << subject->name() << " at E8M0 " << e8m0 << ", " << t.context << "; " << describe(t.config);
            for (std::size_t k = 0; k < t.input.size(); ++k) {
              const std::uint8_t actual = is_fp4(output) ? (k % 2 ? data[k / 2] >> 4 : data[k / 2] & 0xF) : data[k];
              if (actual != t.codes[k]) {
                const int block_e8m0 = t.expected_scale[k % t.config.free / kBlockCols];
                char text[160];
                std::snprintf(text, sizeof text,
                              "input 0x%04X at E8M0 %d: y = 0x%08X, expected code 0x%02X, actual 0x%02X", t.input[k],
                              block_e8m0, to_bits(certify::input_float(input, t.input[k]) * multiplier(block_e8m0)),
                              t.codes[k], actual);
                FAIL() << subject->name() << ": " << text << " (pattern blocks at E8M0 " << e8m0 << ", " << t.context
                       << "); " << describe(t.config);
              }
            }
            elements += t.input.size();
            ++tensors;
          }
        }
        distinct += campaign.distinct_prescaled_values();
      }
    }
    std::printf("%s, %s nan=%s: %zu elements in %zu tensors, %zu prescaled values asked of the oracle\n",
                std::string(subject->name()).c_str(), std::string(name(output)).c_str(),
                std::string(name(policy)).c_str(), elements, tensors, distinct);
  }
}

std::string subject_and_output(const ::testing::TestParamInfo<std::tuple<const Subject*, OutputDtype>>& info) {
  std::string text = std::string(std::get<0>(info.param)->name()) + "_" + std::string(name(std::get<1>(info.param)));
  for (char& c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return text;
}

INSTANTIATE_TEST_SUITE_P(Elements, ExhaustiveElements,
                         ::testing::Combine(::testing::ValuesIn(subjects()),
                                            ::testing::Values(OutputDtype::kFloat4E2m1fnX4, OutputDtype::kFloat8E4m3fn,
                                                              OutputDtype::kFloat8E5m2)),
                         subject_and_output);

TEST(ExhaustivePrescale, OracleProductMatchesTheX86Multiply) {
  std::size_t checked = 0;
  for (InputDtype input : {InputDtype::kBfloat16, InputDtype::kFloat16}) {
    const FormatInfo format = input_format(input);
    for (int e8m0 : {1, 2, 64, 127, 128, 200, 240, 253, 254}) {
      const oracle::Value m = oracle::multiplier(e8m0);
      for (std::uint32_t bits = 0; bits <= 0xFFFF; bits += (e8m0 == 1 || e8m0 == 254 ? 1 : 7)) {
        const oracle::Value y = oracle::prescale(oracle::decode(format, bits), m);
        const std::uint32_t hardware =
            to_bits(certify::input_float(input, static_cast<std::uint16_t>(bits)) * multiplier(e8m0));
        const oracle::Value want = oracle::decode(Float32::info(), hardware);
        ASSERT_EQ(y.kind, want.kind) << std::hex << bits << " e8m0 " << std::dec << e8m0;
        ASSERT_EQ(y.negative, want.negative) << std::hex << bits << " e8m0 " << std::dec << e8m0;
        ASSERT_EQ(y.magnitude, want.magnitude) << std::hex << bits << " e8m0 " << std::dec << e8m0;
        ++checked;
      }
    }
  }
  std::printf("%zu oracle prescales match the hardware multiply\n", checked);
}

}  // namespace
}  // namespace mxconform
