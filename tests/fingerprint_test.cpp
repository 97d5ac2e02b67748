// mxconform fingerprint (certify/fingerprint.h) against plug-ins whose contract is known: the
// profile plug-ins written from their definitions, the neuron scalar with EMAX mode x FP8 NaN
// policy x parity fixed at build time, the nki golden declared as neuron, and a backend with an
// unrelated bug; and a bundle of the deciding cases whose outputs a "device" wrote. Each run is 12
// calls: well under a second.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "fingerprint.h"
#include "mxconform/npy.h"
#include "test_backends.h"

namespace mxconform::certify {
namespace {

std::string matching_label(const Fingerprint& fingerprint) {
  for (const ConfigurationScore& s : fingerprint.scores) {
    if (s.disagreeing.empty()) return s.known->label;
  }
  return "";
}

Fingerprint of(const std::string& backend) { return take_fingerprint(backend, WorkerLimits{5, std::uint64_t{8} << 30}); }

TEST(Fingerprint, NamesEachProfileImplementation) {
  const std::pair<const char*, const char*> known[] = {
      {MXCONFORM_TEST_BACKEND_PROFILE_OCP_FLOOR, "ocp-floor"},
      {MXCONFORM_TEST_BACKEND_PROFILE_TORCHAO_RCEIL, "torchao-rceil"},
      {MXCONFORM_TEST_BACKEND_PROFILE_TE_MXFP8, "transformer-engine-mxfp8"},
      {MXCONFORM_TEST_BACKEND_PROFILE_MICROXCALING, "microxcaling"},
      {MXCONFORM_TEST_BACKEND_PROFILE_NKI_GOLDEN, "nki-golden emax_mode=emax"},
      // What a plug-in computes counts, not what it declares.
      {MXCONFORM_TEST_BACKEND_PROFILE_TORCHAO_RCEIL_AS_OCP_FLOOR, "torchao-rceil"},
      {"scalar", "neuron emax_mode=emax fp8_nan=canonical lane_stride=0 high_parity=1"},
  };
  for (const auto& [backend, label] : known) {
    const Fingerprint fingerprint = of(backend);
    EXPECT_TRUE(fingerprint.decided()) << backend << "\n" << to_text(fingerprint);
    EXPECT_EQ(matching_label(fingerprint), label) << to_text(fingerprint);
  }
}

TEST(Fingerprint, TellsNeuronFromTheNkiGoldenByTheZeroBlock) {
  const Fingerprint fingerprint = of(MXCONFORM_TEST_BACKEND_PROFILE_NKI_GOLDEN_AS_NEURON);
  EXPECT_TRUE(fingerprint.decided()) << to_text(fingerprint);
  EXPECT_EQ(matching_label(fingerprint), "nki-golden emax_mode=emax");
  for (const ConfigurationScore& s : fingerprint.scores) {
    if (s.known->label != "neuron emax_mode=emax fp8_nan=canonical lane_stride=0 high_parity=1") continue;
    EXPECT_NE(std::find(s.disagreeing.begin(), s.disagreeing.end(), "zero-block.e4m3"), s.disagreeing.end());
  }
  EXPECT_NE(to_text(fingerprint).find("zero block: E8M0 0 — case zero-block.e4m3: scale 0x00"), std::string::npos)
      << to_text(fingerprint);
}

TEST(Fingerprint, NamesTheNeuronKnobsAPluginImplements) {
  const std::pair<const char*, const char*> fixed[] = {
      {MXCONFORM_TEST_BACKEND_NEURON_FIXED_E0_N0_P0, "neuron emax_mode=emax fp8_nan=canonical lane_stride=0 high_parity=0"},
      {MXCONFORM_TEST_BACKEND_NEURON_FIXED_E0_N0_P1, "neuron emax_mode=emax fp8_nan=canonical lane_stride=0 high_parity=1"},
      {MXCONFORM_TEST_BACKEND_NEURON_FIXED_E0_N1_P0, "neuron emax_mode=emax fp8_nan=zero lane_stride=0 high_parity=0"},
      {MXCONFORM_TEST_BACKEND_NEURON_FIXED_E0_N1_P1, "neuron emax_mode=emax fp8_nan=zero lane_stride=0 high_parity=1"},
      {MXCONFORM_TEST_BACKEND_NEURON_FIXED_E1_N0_P0, "neuron emax_mode=emax-1 fp8_nan=canonical lane_stride=0 high_parity=0"},
      {MXCONFORM_TEST_BACKEND_NEURON_FIXED_E1_N0_P1, "neuron emax_mode=emax-1 fp8_nan=canonical lane_stride=0 high_parity=1"},
      {MXCONFORM_TEST_BACKEND_NEURON_FIXED_E1_N1_P0, "neuron emax_mode=emax-1 fp8_nan=zero lane_stride=0 high_parity=0"},
      {MXCONFORM_TEST_BACKEND_NEURON_FIXED_E1_N1_P1, "neuron emax_mode=emax-1 fp8_nan=zero lane_stride=0 high_parity=1"},
  };
  for (const auto& [backend, label] : fixed) {
    const Fingerprint fingerprint = of(backend);
    EXPECT_TRUE(fingerprint.decided()) << backend << "\n" << to_text(fingerprint);
    EXPECT_EQ(matching_label(fingerprint), label) << to_text(fingerprint);
  }
}

TEST(Fingerprint, AnUnrelatedBugIsNoKnownProfile) {
  // wrong_rounding: the e4m3 tie at 1.0625 goes up, every other tie to even.
  const Fingerprint fingerprint = of(MXCONFORM_TEST_BACKEND_WRONG_ROUNDING);
  EXPECT_FALSE(fingerprint.decided());
  EXPECT_EQ(matching_label(fingerprint), "");
  ASSERT_FALSE(fingerprint.scores.empty());
  EXPECT_EQ(fingerprint.scores.front().disagreeing, std::vector<std::string>{"fp8.tie.1.0625"});
  const std::string text = to_text(fingerprint);
  EXPECT_NE(text.find("no known profile matches every case"), std::string::npos) << text;
  // The tie went away from zero, as microxcaling does; the rest of its cases are Neuron's.
  EXPECT_NE(text.find("element ties: nearest, ties away from zero — case fp8.tie.1.0625: scale 0x7F, data[1] 0x39"),
            std::string::npos)
      << text;
}

// fingerprint --export-bundle, then --bundle: a "device" that computes the nki golden (the oracle
// under that profile) writes the outputs of a neuron fingerprint bundle, and leaves out the FP4
// cases, which the golden refuses. The bundle's expected bytes are neuron's; the fingerprint must
// read the device's.
TEST(Fingerprint, ReadsADevicesOutputsBackFromABundle) {
  const std::string dir = ::testing::TempDir() + "/fingerprint-bundle-" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  ExportOptions options;
  options.directory = dir;
  options.campaigns = {kFingerprintCampaign};
  const ExportSummary summary = export_bundle(options);
  EXPECT_EQ(summary.cases, deciding_cases().size());  // neuron admits every deciding case's dtype
  std::size_t index = 0, fp4 = 0;
  for_each_deciding_case(QuantizeConfig{}, [&](const CampaignCase& c) {
    const std::string id = bundle_case_id(index++);
    if (is_fp4(c.config.output)) {
      ++fp4;
      return;
    }
    QuantizeConfig device = c.config;
    apply_profile(device, ProfileId::kNkiGolden);  // dtypes, shape and (here) knobs unchanged
    std::vector<std::uint8_t> data, scale;
    oracle_bytes(device, c.input, data, scale);
    const Geometry g = geometry(device);
    npy::write(dir + "/outputs/" + id + ".data.npy", {npy::ElementType::kUint8, {device.partitions, g.data_row_bytes}, data},
               false);
    npy::write(dir + "/outputs/" + id + ".scale.npy", {npy::ElementType::kUint8, {g.scale_rows, g.block_cols}, scale}, false);
  });
  GradeOptions grade;
  grade.directory = dir;
  const Fingerprint fingerprint = fingerprint_of_bundle(grade);
  const std::string text = to_text(fingerprint);
  EXPECT_TRUE(fingerprint.decided()) << text;
  EXPECT_EQ(matching_label(fingerprint), "nki-golden emax_mode=emax") << text;
  EXPECT_EQ(fingerprint.call.profile, ProfileId::kNeuron);
  const auto missing = std::count_if(fingerprint.cases.begin(), fingerprint.cases.end(),
                                     [](const CaseObservation& seen) { return seen.outcome == Outcome::kMissingOutput; });
  EXPECT_EQ(static_cast<std::size_t>(missing), fp4);
  EXPECT_NE(text.find("zero block: E8M0 0 — case zero-block.e4m3: scale 0x00"), std::string::npos) << text;
  EXPECT_NE(text.find("not run (missing-output"), std::string::npos) << text;

  // A certify bundle is not a fingerprint bundle.
  const std::string other = dir + "-properties";
  std::filesystem::remove_all(other);
  ExportOptions properties_only;
  properties_only.directory = other;
  properties_only.campaigns = {"properties"};
  export_bundle(properties_only);
  GradeOptions wrong;
  wrong.directory = other;
  EXPECT_THROW(fingerprint_of_bundle(wrong), Error);
  std::filesystem::remove_all(dir);
  std::filesystem::remove_all(other);
}

}  // namespace
}  // namespace mxconform::certify
