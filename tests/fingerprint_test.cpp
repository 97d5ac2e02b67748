// mxconform fingerprint (certify/fingerprint.h) against plug-ins whose contract is known: the
// profile plug-ins written from their definitions, the neuron scalar with EMAX mode x FP8 NaN
// policy x parity fixed at build time, the nki golden declared as neuron, and a backend with an
// unrelated bug, bugs no deciding case shows (the confirmation campaign's), plug-ins of a dtype
// subset; and a bundle of the deciding cases whose outputs a "device" wrote. Each run is 12
// deciding calls and, for a match, up to 400 confirmation calls: seconds to tens of seconds.
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
      {MXCONFORM_TEST_BACKEND_PROFILE_NKI_GOLDEN_KERNEL, "nki-golden-kernel"},
      {MXCONFORM_TEST_BACKEND_PROFILE_TORCHAO_CEIL, "torchao-ceil"},
      {MXCONFORM_TEST_BACKEND_PROFILE_TORCHAO_EVEN, "torchao-even"},
      // FP4 codes under a NaN scale are the device's own (unspecified by the contract).
      {MXCONFORM_TEST_BACKEND_PROFILE_OCP_FLOOR_FP4_NAN_X86, "ocp-floor"},
      {MXCONFORM_TEST_BACKEND_PROFILE_TORCHAO_RCEIL_FP4_NAN_GPU, "torchao-rceil"},
      {MXCONFORM_TEST_BACKEND_PROFILE_TE_MXFP8_NEGATIVE_ZERO_PLUS, "transformer-engine-mxfp8"},
      // What a plug-in computes counts, not what it declares.
      {MXCONFORM_TEST_BACKEND_PROFILE_TORCHAO_RCEIL_AS_OCP_FLOOR, "torchao-rceil"},
      {"scalar", "neuron emax_mode=emax fp8_nan=canonical lane_stride=0 high_parity=1"},
      // neuron written in C from the contract, apart from the scalar.
      {MXCONFORM_TEST_BACKEND_PROFILE_NEURON, "neuron emax_mode=emax fp8_nan=canonical lane_stride=0 high_parity=1"},
  };
  for (const auto& [backend, label] : known) {
    const Fingerprint fingerprint = of(backend);
    EXPECT_TRUE(fingerprint.decided()) << backend << "\n" << to_text(fingerprint);
    EXPECT_EQ(matching_label(fingerprint), label) << to_text(fingerprint);
    // A correct implementation passes the confirmation campaign too.
    EXPECT_TRUE(fingerprint.confirmation_ran) << backend;
    EXPECT_GT(fingerprint.confirmation_cases, 0u) << backend << "\n" << to_text(fingerprint);
    EXPECT_EQ(fingerprint.confirmation_failed, 0u) << backend << "\n" << to_text(fingerprint);
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

// Bugs no single-block deciding case shows: the deciding cases match neuron, the confirmation
// campaign (the neuron corpus and generated cases) finds the bug, and the verdict is no known
// profile with the disagreeing cases. These plug-ins declare only bfloat16 -> float8_e4m3fn,
// so the FP4 knobs are not applicable.
TEST(Fingerprint, ABugTheDecidingCasesMissIsNoKnownProfile) {
  const char* const planted[] = {
      MXCONFORM_TEST_BACKEND_LARGE_P_BUG,           // P >= 64: a bit of every non-zero element
      MXCONFORM_TEST_BACKEND_UNNAMED_ROW_PAST_128,  // P >= 136: writes an unnamed scale row
      MXCONFORM_TEST_BACKEND_ONE_SCALE_VALUE_BUG,   // E8M0 201 where 200 is right
      MXCONFORM_TEST_BACKEND_ZERO_NAN_BLOCK_BUG,    // a block of zeros and one NaN gets scale 0x02
  };
  for (const char* backend : planted) {
    const Fingerprint fingerprint = of(backend);
    const std::string text = to_text(fingerprint);
    EXPECT_FALSE(fingerprint.decided()) << backend << "\n" << text;
    ASSERT_EQ(fingerprint.matching_labels().size(), 1u) << backend << "\n" << text;
    EXPECT_TRUE(fingerprint.confirmation_ran);
    EXPECT_GT(fingerprint.confirmation_failed, 0u) << backend << "\n" << text;
    ASSERT_FALSE(fingerprint.confirmation_failures.empty()) << backend;
    EXPECT_LE(fingerprint.confirmation_failed, fingerprint.confirmation_cases);
    EXPECT_NE(text.find("no known profile: matches "), std::string::npos) << text;
    EXPECT_NE(text.find(" on the deciding cases but differs on "), std::string::npos) << text;
    EXPECT_EQ(text.find("matches every case"), std::string::npos) << text;
    EXPECT_FALSE(fingerprint.confirmation_failures.front().difference.empty());
  }
}

// A correct neuron plug-in without FP4 outputs: named neuron with lane stride and parity not
// applicable (not ambiguity), and confirmed.
void expect_neuron_without_fp4(const Fingerprint& fingerprint) {
  const std::string text = to_text(fingerprint);
  EXPECT_TRUE(fingerprint.decided()) << text;
  EXPECT_EQ(fingerprint.matching_labels(),
            std::vector<std::string>{"neuron emax_mode=emax fp8_nan=canonical lane_stride=n/a high_parity=n/a"})
      << text;
  EXPECT_EQ(fingerprint.not_applicable, std::vector<Axis>{Axis::kNibbleOrder});
  EXPECT_NE(text.find("FP4 nibble order: not applicable (the subject declares no FP4 output dtype)"), std::string::npos)
      << text;
  EXPECT_GT(fingerprint.confirmation_cases, 0u);
  EXPECT_EQ(fingerprint.confirmation_failed, 0u) << text;
}

// The project's FP8-only plug-in (the correct scalar).
TEST(Fingerprint, NamesAnFp8OnlyBackendWithTheFp4KnobsNotApplicable) {
  expect_neuron_without_fp4(of(MXCONFORM_TEST_BACKEND_FP8_ONLY));
}

// float16 -> float8_e5m2 only: the deciding cases run in those dtypes where their point
// survives (the small-field block has no float16 value; e5m2 has its own tie), and it is neuron.
TEST(Fingerprint, NamesABackendOfOtherDtypesByCasesInItsDtypes) {
  const Fingerprint fingerprint = of(MXCONFORM_TEST_BACKEND_FLOAT16_E5M2_ONLY);
  expect_neuron_without_fp4(fingerprint);
  EXPECT_NE(to_text(fingerprint).find("fp8.tie.1.0625@float16>float8_e5m2"), std::string::npos) << to_text(fingerprint);
}

// The adapted e5m2 tie: 1.125 under amax 256 is halfway between e5m2's 1 and 1.25 (by hand:
// 2 mantissa bits, step 0.25 in [1, 2)); from bfloat16 it still parts ties to even from away.
TEST(Fingerprint, AdaptsTheFp8TieToE5m2) {
  Capabilities declared;
  declared.input_dtypes = 1u << static_cast<std::uint32_t>(InputDtype::kBfloat16);
  declared.output_dtypes = 1u << static_cast<std::uint32_t>(OutputDtype::kFloat8E5m2);
  for (const DecidingCase& c : deciding_cases()) {
    if (c.id != "fp8.tie.1.0625") continue;
    DecidingCase adapted;
    ASSERT_TRUE(adapt_deciding_case(c, declared, adapted));
    EXPECT_EQ(adapted.output, OutputDtype::kFloat8E5m2);
    EXPECT_EQ(adapted.input[1], 0x3F90);  // bfloat16 1.125
  }
  declared.output_dtypes = 1u << static_cast<std::uint32_t>(OutputDtype::kFloat4E2m1fnX4);
  EXPECT_EQ(not_applicable_axes(declared), std::vector<Axis>{Axis::kFp8NanPolicy});
}

// The directory an export's outputs go to (docs/bundle-manifest.md): outputs/<export_id>, the
// only directory in outputs/ after an export into a new directory.
std::string outputs_of(const std::string& bundle) {
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator(bundle + "/outputs")) found.push_back(entry.path().string());
  EXPECT_EQ(found.size(), 1u) << bundle;
  return found.empty() ? bundle + "/outputs" : found.front();
}

// The observation of the deciding case `id`.
const CaseObservation& observation(const Fingerprint& fingerprint, const std::string& id) {
  for (const CaseObservation& seen : fingerprint.cases) {
    if (seen.deciding->id == id) return seen;
  }
  static const CaseObservation kNone;
  ADD_FAILURE() << "no observation of " << id;
  return kNone;
}

// A microxcaling plug-in that declares only 32x1 blocks: its FP4 deciding cases run on four
// blocks side by side ([32, 4]: an x4 dtype needs F % 4 == 0), and the match is confirmed in 32x1
// blocks, on cases that ran.
TEST(Fingerprint, ConfirmsA32x1OnlySubjectIn32x1Blocks) {
  const Fingerprint fingerprint = of(MXCONFORM_TEST_BACKEND_PROFILE_MICROXCALING_32X1_ONLY);
  const std::string text = to_text(fingerprint);
  EXPECT_EQ(fingerprint.call.block_shape, BlockShape::k32x1);
  EXPECT_TRUE(fingerprint.decided()) << text;
  EXPECT_EQ(matching_label(fingerprint), "microxcaling") << text;
  for (const char* id : {"scale.amax-7.fp4", "fp4.ties", "fp4.nibbles"}) {
    EXPECT_EQ(observation(fingerprint, id).outcome, Outcome::kPass) << id << "\n" << text;
  }
  EXPECT_NE(text.find("element ties: nearest, ties away from zero — case fp4.ties"), std::string::npos) << text;
  EXPECT_GT(fingerprint.confirmation_cases, 100u) << text;
  EXPECT_EQ(fingerprint.confirmation_failed, 0u) << text;
  EXPECT_NE(text.find("confirmed on "), std::string::npos) << text;
}

// The same plug-in wrong on every e5m2 output and float16 input: the deciding cases (bfloat16,
// e4m3 and FP4) match microxcaling, the 32x1 confirmation cases show the bug.
TEST(Fingerprint, A32x1OnlySubjectsBugIsFoundByTheConfirmation) {
  const Fingerprint fingerprint = of(MXCONFORM_TEST_BACKEND_PROFILE_MICROXCALING_32X1_E5M2_FLOAT16_BUG);
  const std::string text = to_text(fingerprint);
  EXPECT_FALSE(fingerprint.decided()) << text;
  EXPECT_EQ(fingerprint.matching_labels(), std::vector<std::string>{"microxcaling"}) << text;
  EXPECT_GT(fingerprint.confirmation_failed, 0u) << text;
  EXPECT_NE(text.find("no known profile: matches microxcaling on the deciding cases but differs on "), std::string::npos)
      << text;
  EXPECT_EQ(text.find("confirmed on"), std::string::npos) << text;
}

// The same plug-in with the two nibbles of each FP4 byte swapped: in 32x1 blocks the four columns
// of the FP4 deciding cases differ (copy k rotated by k), so the swap shows and no known
// configuration (microxcaling has no lane knobs) matches.
TEST(Fingerprint, SwappedNibblesIn32x1BlocksAreNoKnownProfile) {
  const Fingerprint fingerprint = of(MXCONFORM_TEST_BACKEND_PROFILE_MICROXCALING_32X1_NIBBLE_SWAP);
  const std::string text = to_text(fingerprint);
  EXPECT_FALSE(fingerprint.decided()) << text;
  EXPECT_EQ(observation(fingerprint, "fp4.nibbles").outcome, Outcome::kWrongResult) << text;
  for (const ConfigurationScore& s : fingerprint.scores) {
    if (s.known->label != "microxcaling") continue;
    EXPECT_NE(std::find(s.disagreeing.begin(), s.disagreeing.end(), "fp4.nibbles"), s.disagreeing.end()) << text;
  }
}

// A subject that ran no deciding case (each declined) matches nothing: not "every configuration".
TEST(Fingerprint, NoCaseRunIsNoMatch) {
  Fingerprint fingerprint;
  fingerprint.backend = "subject";
  static const KnownConfiguration known{QuantizeConfig{}, "neuron"};
  fingerprint.scores.push_back({&known, "neuron", {}});
  CaseObservation declined;
  declined.deciding = &deciding_cases().front();
  declined.outcome = Outcome::kUnsupported;
  declined.detail = "declined";
  fingerprint.cases.push_back(declined);
  EXPECT_EQ(fingerprint.cases_run(), 0u);
  EXPECT_TRUE(fingerprint.matching_labels().empty());
  EXPECT_FALSE(fingerprint.decided());
  const std::string text = to_text(fingerprint);
  EXPECT_NE(text.find("\nno deciding case ran: "), std::string::npos) << text;
  EXPECT_EQ(text.find("matches every case"), std::string::npos) << text;
}

// A match no confirmation case ran on is not confirmed: not decided (exit 2), and said so.
TEST(Fingerprint, AMatchWithoutAConfirmationCaseIsNotConfirmed) {
  Fingerprint fingerprint;
  fingerprint.backend = "subject";
  fingerprint.scores.push_back({nullptr, "microxcaling", {}});
  fingerprint.scores.push_back({nullptr, "ocp-floor", {"fp4.ties"}});
  CaseObservation ran;  // one deciding case ran (a match on none is none)
  ran.deciding = &deciding_cases().front();
  fingerprint.cases.push_back(ran);
  fingerprint.confirmation_ran = true;
  EXPECT_FALSE(fingerprint.decided());
  const std::string text = to_text(fingerprint);
  EXPECT_NE(text.find("\nnot confirmed: no confirmation case ran"), std::string::npos) << text;
  EXPECT_EQ(text.find("confirmed on"), std::string::npos) << text;
  fingerprint.confirmation_cases = 1;
  EXPECT_TRUE(fingerprint.decided());
}

// A fingerprint bundle for 32x1 blocks holds the FP4 deciding cases too, on [32, 4]; a "device"
// computing microxcaling in 32x1 blocks (the oracle under that profile) is named microxcaling.
TEST(Fingerprint, A32x1BundleHoldsTheFp4CasesOnFourBlocks) {
  const std::string dir = ::testing::TempDir() + "/fingerprint-bundle-32x1-" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  ExportOptions options;
  options.directory = dir;
  options.campaigns = {kFingerprintCampaign};
  apply_profile(options.knobs, ProfileId::kMicroxcaling);
  options.knobs.block_shape = BlockShape::k32x1;
  EXPECT_EQ(export_bundle(options).cases, deciding_cases().size());  // microxcaling has FP4 and FP8
  std::size_t index = 0;
  const std::string outputs = outputs_of(dir);
  for_each_deciding_case(options.knobs, [&](const CampaignCase& c) {
    const std::string id = bundle_case_id(index++);
    if (is_fp4(c.config.output)) {
      EXPECT_EQ(c.config.partitions, 32u) << c.id;
      EXPECT_EQ(c.config.free, 4u) << c.id;
    }
    const Geometry g = geometry(c.config);
    npy::write(outputs + "/" + id + ".data.npy",
               {npy::ElementType::kUint8, {c.config.partitions, g.data_row_bytes}, c.expected_data}, false);
    npy::write(outputs + "/" + id + ".scale.npy", {npy::ElementType::kUint8, {g.scale_rows, g.block_cols}, c.expected_scale},
               false);
  });
  GradeOptions grade;
  grade.directory = dir;
  const Fingerprint fingerprint = fingerprint_of_bundle(grade);
  const std::string text = to_text(fingerprint);
  EXPECT_TRUE(fingerprint.decided()) << text;
  EXPECT_EQ(matching_label(fingerprint), "microxcaling") << text;
  EXPECT_EQ(observation(fingerprint, "fp4.ties").outcome, Outcome::kPass) << text;
  EXPECT_EQ(text.find("not run"), std::string::npos) << text;
  std::filesystem::remove_all(dir);
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
  const std::string outputs = outputs_of(dir);
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
    npy::write(outputs + "/" + id + ".data.npy", {npy::ElementType::kUint8, {device.partitions, g.data_row_bytes}, data},
               false);
    npy::write(outputs + "/" + id + ".scale.npy", {npy::ElementType::kUint8, {g.scale_rows, g.block_cols}, scale}, false);
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
