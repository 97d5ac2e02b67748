// certify --profile (certify/profile_campaign.h): a plug-in written from a profile's definition
// (tests/backends/profile_*.c) is CERTIFIED under that profile; the same rules declared as another
// profile are NOT CERTIFIED, and the first failure is one of the cases on which the two differ.
// A plug-in whose info ends before the profile fields is neuron-only. Restricted to the corpus and
// properties campaigns at gate level: seconds.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "certification.h"
#include "mxconform/error.h"
#include "mxconform/profile.h"
#include "mxconform/open_subject.h"
#include "test_backends.h"

namespace mxconform::certify {
namespace {

Certificate certify_as(const std::string& backend, ProfileId profile) {
  CertifyOptions options;
  options.backend = backend;
  options.campaigns = {"corpus", "properties"};
  options.corpus_paths = {MXCONFORM_SOURCE_CORPUS_DIR_FOR_TESTS};
  options.timeout_seconds = 5;
  if (profile != ProfileId::kNeuron) apply_profile(options.knobs, profile);
  return run_certification(options);
}

TEST(ProfileCertify, EachProfileCertifiesItsOwnImplementation) {
  const std::pair<const char*, ProfileId> own[] = {
      {MXCONFORM_TEST_BACKEND_PROFILE_NEURON, ProfileId::kNeuron},
      {MXCONFORM_TEST_BACKEND_PROFILE_OCP_FLOOR, ProfileId::kOcpFloor},
      {MXCONFORM_TEST_BACKEND_PROFILE_TORCHAO_RCEIL, ProfileId::kTorchaoRceil},
      {MXCONFORM_TEST_BACKEND_PROFILE_TE_MXFP8, ProfileId::kTransformerEngineMxfp8},
      {MXCONFORM_TEST_BACKEND_PROFILE_MICROXCALING, ProfileId::kMicroxcaling},
      {MXCONFORM_TEST_BACKEND_PROFILE_NKI_GOLDEN, ProfileId::kNkiGolden},
      {MXCONFORM_TEST_BACKEND_PROFILE_NKI_GOLDEN_KERNEL, ProfileId::kNkiGoldenKernel},
      {MXCONFORM_TEST_BACKEND_PROFILE_TORCHAO_CEIL, ProfileId::kTorchaoCeil},
      {MXCONFORM_TEST_BACKEND_PROFILE_TORCHAO_EVEN, ProfileId::kTorchaoEven},
  };
  for (const auto& [backend, profile] : own) {
    const Certificate certificate = certify_as(backend, profile);
    EXPECT_TRUE(certificate.certified()) << name(profile) << ": " << verdict_table(certificate);
    EXPECT_GT(certificate.cases, 100u) << name(profile);
  }
}

// The first failure's case id, which must name a block where the two profiles part.
void expect_not_certified_at(const char* backend, ProfileId profile, const std::set<std::string>& deciding) {
  const Certificate certificate = certify_as(backend, profile);
  EXPECT_FALSE(certificate.certified()) << name(profile);
  ASSERT_FALSE(certificate.failures.empty()) << name(profile) << ": " << verdict_table(certificate);
  const Failure& first = certificate.failures.front();
  EXPECT_TRUE(deciding.count(first.case_id) == 1) << name(profile) << ": first failure " << first.case_id;
  EXPECT_NE(first.repro_yaml.find("profile: " + std::string(name(profile))), std::string::npos) << first.repro_yaml;
}

TEST(ProfileCertify, AnotherProfilesImplementationFailsOnADivergenceCase) {
  // RCEIL declared as FLOOR: the corpus's FP4 amax 7 (scale 127 vs 128) comes first.
  expect_not_certified_at(MXCONFORM_TEST_BACKEND_PROFILE_TORCHAO_RCEIL_AS_OCP_FLOOR, ProfileId::kOcpFloor,
                          {"ocp-floor.fp4-amax-7", "torchao.mxfp8.floor.positive-dtype-max"});
  // Ties away declared as FLOOR with RNE: the FP4 ties.
  expect_not_certified_at(MXCONFORM_TEST_BACKEND_PROFILE_MICROXCALING_AS_OCP_FLOOR, ProfileId::kOcpFloor,
                          {"ocp-floor.fp4-ties-even"});
  // FLOOR declared as RCEIL: torchao's FP4 amax 7 or bf16 max.
  expect_not_certified_at(MXCONFORM_TEST_BACKEND_PROFILE_OCP_FLOOR_AS_TORCHAO_RCEIL, ProfileId::kTorchaoRceil,
                          {"torchao-rceil.fp4-amax-7", "torchao.mxfp8.rceil.positive-dtype-max"});
  // No satfinite and NaN kept in amax, declared as TransformerEngine: Inf in a block.
  expect_not_certified_at(MXCONFORM_TEST_BACKEND_PROFILE_TORCHAO_RCEIL_AS_TE_MXFP8, ProfileId::kTransformerEngineMxfp8,
                          {"te.inf-in-block", "te.nan-in-block", "te.inf-beside-2-127"});
}

// Every profile's implementation declared as every other profile, of its own geometry or another
// (a 1x32 rule asked for 8x4 blocks computes its rule on 8x4 blocks, and the other way round):
// NOT CERTIFIED, every failure a wrong byte (no crash, no refusal), and the first shrunk to a repro
// of one block of the declared geometry that still fails and names the declared profile. A pair
// that agreed on every case would mean the campaign cannot tell them apart. neuron is among them:
// its rules written in C (profile_neuron.c) as each other profile, and each other as neuron.
TEST(ProfileCertify, EveryOtherProfilesImplementationIsNotCertified) {
  struct Implementation {
    const char* backend;
    ProfileId profile;
  };
  const std::vector<Implementation> implementations = {
      {MXCONFORM_TEST_BACKEND_PROFILE_NEURON_AS_DECLARED, ProfileId::kNeuron},
      {MXCONFORM_TEST_BACKEND_PROFILE_NKI_GOLDEN_AS_DECLARED, ProfileId::kNkiGolden},
      {MXCONFORM_TEST_BACKEND_PROFILE_NKI_GOLDEN_KERNEL_AS_DECLARED, ProfileId::kNkiGoldenKernel},
      {MXCONFORM_TEST_BACKEND_PROFILE_OCP_FLOOR_AS_DECLARED, ProfileId::kOcpFloor},
      {MXCONFORM_TEST_BACKEND_PROFILE_TORCHAO_CEIL_AS_DECLARED, ProfileId::kTorchaoCeil},
      {MXCONFORM_TEST_BACKEND_PROFILE_TORCHAO_EVEN_AS_DECLARED, ProfileId::kTorchaoEven},
      {MXCONFORM_TEST_BACKEND_PROFILE_TORCHAO_RCEIL_AS_DECLARED, ProfileId::kTorchaoRceil},
      {MXCONFORM_TEST_BACKEND_PROFILE_TE_MXFP8_AS_DECLARED, ProfileId::kTransformerEngineMxfp8},
      {MXCONFORM_TEST_BACKEND_PROFILE_MICROXCALING_AS_DECLARED, ProfileId::kMicroxcaling},
  };
  ASSERT_EQ(implementations.size(), kProfileCount);
  std::size_t pairs = 0;
  for (const Implementation& implementation : implementations) {
    for (const Implementation& declared : implementations) {
      if (declared.profile == implementation.profile) continue;
      ++pairs;
      const std::string pair = std::string(name(implementation.profile)) + " as " + std::string(name(declared.profile));
      ASSERT_EQ(setenv("MXCONFORM_TEST_DECLARED_PROFILE", std::to_string(static_cast<int>(declared.profile)).c_str(), 1), 0);
      const Certificate certificate = certify_as(implementation.backend, declared.profile);
      EXPECT_FALSE(certificate.certified()) << pair << ": " << verdict_table(certificate);
      ASSERT_FALSE(certificate.failures.empty()) << pair << ": " << verdict_table(certificate);
      for (const Failure& failure : certificate.failures) {
        EXPECT_EQ(failure.outcome, Outcome::kWrongResult) << pair << ": " << failure.case_id << ": " << failure.detail;
      }
      const Failure& first = certificate.failures.front();
      const std::string one_block = profile(declared.profile).default_shape == BlockShape::k8x4 ? "shape: [8, 4]" : "shape: [1, 32]";
      EXPECT_NE(first.repro_yaml.find(one_block), std::string::npos) << pair << ": " << first.repro_yaml;
      if (declared.profile != ProfileId::kNeuron) {
        EXPECT_NE(first.repro_yaml.find("profile: " + std::string(name(declared.profile))), std::string::npos)
            << pair << ": " << first.repro_yaml;
      }
      EXPECT_NE(first.repro_detail.find("differ"), std::string::npos) << pair << ": " << first.repro_detail;
    }
  }
  EXPECT_EQ(pairs, kProfileCount * (kProfileCount - 1));
  unsetenv("MXCONFORM_TEST_DECLARED_PROFILE");
}

// Bugs no single block shows, planted in plug-ins of the profile's own rules: each is NOT
// CERTIFIED by the generated cases alone, first on a case of several blocks (or, for the nibbles,
// of 32x1 copies that differ), and by the corpus alone, on its hand-derived cases of several blocks.
void expect_not_certified(const char* backend, ProfileId profile, bool all_knobs, const std::string& first_prefix,
                          const std::string& campaign = "properties") {
  CertifyOptions options;
  options.backend = backend;
  options.campaigns = {campaign};
  options.corpus_paths = {MXCONFORM_SOURCE_CORPUS_DIR_FOR_TESTS};
  options.timeout_seconds = 5;
  options.all_knobs = all_knobs;
  apply_profile(options.knobs, profile);
  const Certificate certificate = run_certification(options);
  EXPECT_FALSE(certificate.certified()) << backend << ": " << verdict_table(certificate);
  ASSERT_FALSE(certificate.failures.empty()) << backend;
  EXPECT_EQ(certificate.failures.front().case_id.rfind(first_prefix, 0), 0u)
      << backend << ": first failure " << certificate.failures.front().case_id;
}

TEST(ProfileCertify, BugsOfSeveralBlocksAreNotCertified) {
  // Every block scaled as the first one is (the corpus's single blocks and the profile's single
  // blocks pass; only a tensor of several blocks shows it).
  expect_not_certified(MXCONFORM_TEST_BACKEND_PROFILE_OCP_FLOOR_FIRST_BLOCK_SCALE, ProfileId::kOcpFloor, false, "tensor.");
  expect_not_certified(MXCONFORM_TEST_BACKEND_PROFILE_MICROXCALING_FIRST_BLOCK_SCALE, ProfileId::kMicroxcaling, true, "tensor.");
  // Logical scale rows where the physical layout is asked: rows differ from the fifth block row on.
  expect_not_certified(MXCONFORM_TEST_BACKEND_PROFILE_NKI_GOLDEN_LOGICAL_SCALE_ROWS, ProfileId::kNkiGolden, false, "tensor.");
  expect_not_certified(MXCONFORM_TEST_BACKEND_PROFILE_NKI_GOLDEN_LOGICAL_SCALE_ROWS, ProfileId::kNkiGolden, true, "tensor.");
  // The corpus's hand-derived cases of several blocks (corpus/cases/profiles/multi_block.yaml)
  // catch the same bugs on their own.
  expect_not_certified(MXCONFORM_TEST_BACKEND_PROFILE_OCP_FLOOR_FIRST_BLOCK_SCALE, ProfileId::kOcpFloor, false,
                       "ocp-floor.multi-block.", "corpus");
  expect_not_certified(MXCONFORM_TEST_BACKEND_PROFILE_MICROXCALING_FIRST_BLOCK_SCALE, ProfileId::kMicroxcaling, true,
                       "mx.multi-block.", "corpus");
  expect_not_certified(MXCONFORM_TEST_BACKEND_PROFILE_NKI_GOLDEN_LOGICAL_SCALE_ROWS, ProfileId::kNkiGolden, true,
                       "nki-golden.multi-block.physical-rows", "corpus");
  expect_not_certified(MXCONFORM_TEST_BACKEND_PROFILE_MICROXCALING_32X1_NIBBLE_SWAP, ProfileId::kMicroxcaling, true,
                       "mx.multi-block.fp4-32x1-nibbles", "corpus");
}

TEST(ProfileCertify, SwappedNibblesIn32x1BlocksAreNotCertified) {
  CertifyOptions options;
  options.backend = MXCONFORM_TEST_BACKEND_PROFILE_MICROXCALING_32X1_NIBBLE_SWAP;
  options.campaigns = {"properties"};  // the generated cases alone must show it
  options.timeout_seconds = 5;
  apply_profile(options.knobs, ProfileId::kMicroxcaling);
  options.knobs.block_shape = BlockShape::k32x1;
  const Certificate certificate = run_certification(options);
  EXPECT_FALSE(certificate.certified()) << verdict_table(certificate);
  ASSERT_FALSE(certificate.failures.empty());
  for (const Failure& f : certificate.failures) {
    EXPECT_NE(f.configuration.find("float4_e2m1fn_x4"), std::string::npos) << f.case_id << ": " << f.configuration;
  }
}

// TransformerEngine in 32x1 blocks from a plug-in that declares only 1x32: nothing requested is
// supported, so NOT CERTIFIED with that reason; the corpus's 1x32 cases are not the request.
TEST(ProfileCertify, ABlockShapeTheBackendDoesNotDeclareIsNotCertified) {
  CertifyOptions options;
  options.backend = MXCONFORM_TEST_BACKEND_PROFILE_TE_MXFP8_1X32_ONLY;
  options.campaigns = {"corpus", "properties"};
  options.corpus_paths = {MXCONFORM_SOURCE_CORPUS_DIR_FOR_TESTS};
  options.timeout_seconds = 5;
  apply_profile(options.knobs, ProfileId::kTransformerEngineMxfp8);
  options.knobs.block_shape = BlockShape::k32x1;
  const Certificate certificate = run_certification(options);
  EXPECT_FALSE(certificate.certified()) << verdict_table(certificate);
  EXPECT_EQ(certificate.why_not_certified(),
            "none of the requested configurations is supported by the backend: not declared: block shape 32x1");
  for (const Tally& t : certificate.tallies) {
    EXPECT_NE(t.configuration.find("block=32x1"), std::string::npos) << "not asked for: " << t.configuration;
    EXPECT_EQ(t.outcomes.count("pass"), 0u) << t.configuration;
  }
  // In the block shape it declares, the same plug-in is certified, on that shape's cases only.
  options.knobs.block_shape = BlockShape::k1x32;
  const Certificate own = run_certification(options);
  EXPECT_TRUE(own.certified()) << verdict_table(own);
  for (const Tally& t : own.tallies) EXPECT_NE(t.configuration.find("block=1x32"), std::string::npos) << t.configuration;
}

// Bytes a profile's source leaves to the device: FP4 codes under a NaN scale as torchao writes them
// on x86 (0x33) and on a GPU (0x44), and -0 to 0x00 as TransformerEngine's default kernel writes
// it. The contract leaves them unspecified, so the plug-ins are CERTIFIED, though their bytes
// differ from the oracle's there on the campaign's NaN, Inf and signed-zero blocks (each of these
// tests fails when with_unspecified_from grades those bytes too).
TEST(ProfileCertify, BytesTheSourceLeavesToTheDeviceAreNotGraded) {
  const std::pair<const char*, ProfileId> devices[] = {
      {MXCONFORM_TEST_BACKEND_PROFILE_OCP_FLOOR_FP4_NAN_X86, ProfileId::kOcpFloor},
      {MXCONFORM_TEST_BACKEND_PROFILE_TORCHAO_RCEIL_FP4_NAN_GPU, ProfileId::kTorchaoRceil},
      {MXCONFORM_TEST_BACKEND_PROFILE_TE_MXFP8_NEGATIVE_ZERO_PLUS, ProfileId::kTransformerEngineMxfp8},
  };
  for (const auto& [backend, profile] : devices) {
    const Certificate certificate = certify_as(backend, profile);
    EXPECT_TRUE(certificate.certified()) << name(profile) << ": " << verdict_table(certificate);
    EXPECT_GT(certificate.cases, 100u);
  }
}

// The exhaustive element campaign is neuron-only: alone under ocp-floor it is a usage error (no
// verdict on no case); beside the corpus it is skipped, and the certificate says why.
TEST(ProfileCertify, TheExhaustiveCampaignIsSkippedOutsideNeuronAndSaysWhy) {
  CertifyOptions options;
  options.backend = MXCONFORM_TEST_BACKEND_PROFILE_OCP_FLOOR;
  options.corpus_paths = {MXCONFORM_SOURCE_CORPUS_DIR_FOR_TESTS};
  options.timeout_seconds = 5;
  apply_profile(options.knobs, ProfileId::kOcpFloor);
  options.campaigns = {"exhaustive"};
  EXPECT_THROW(run_certification(options), Error);
  options.campaigns = {"corpus", "exhaustive"};
  const Certificate certificate = run_certification(options);
  EXPECT_TRUE(certificate.certified()) << verdict_table(certificate);
  const std::string table = verdict_table(certificate);
  EXPECT_NE(table.find("\nskipped: exhaustive: the exhaustive element campaign is neuron-only"), std::string::npos) << table;
  EXPECT_NE(to_yaml(certificate).find("\ncampaigns_skipped: "), std::string::npos);
}

TEST(ProfileCertify, TheNkiGoldenIsNotNeuron) {
  // The golden declared as neuron: the corpus's first block whose max field is at most EMAX.
  const Certificate certificate = certify_as(MXCONFORM_TEST_BACKEND_PROFILE_NKI_GOLDEN_AS_NEURON, ProfileId::kNeuron);
  EXPECT_FALSE(certificate.certified());
  ASSERT_FALSE(certificate.failures.empty());
}

// A declaration no configuration fits (ocp-floor, whose only block shape is 1x32, beside
// block_shapes 0, which reads as 8x4) is refused at load, naming the fields; certify and
// fingerprint never run on it (a fingerprint of no case would match every configuration).
TEST(ProfileCertify, ADeclarationNoConfigurationFitsIsRefused) {
  try {
    open_subject(MXCONFORM_TEST_BACKEND_PROFILE_OCP_FLOOR_NO_BLOCK_SHAPES);
    ADD_FAILURE() << "loaded";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("profiles declares ocp-floor, which admit block shapes 1x32; block_shapes "
                                             "declares 8x4 (0 declares 8x4): no configuration fits both"),
              std::string::npos)
        << error.what();
  }
  CertifyOptions options;
  options.backend = MXCONFORM_TEST_BACKEND_PROFILE_OCP_FLOOR_NO_BLOCK_SHAPES;
  options.campaigns = {"corpus"};
  options.corpus_paths = {MXCONFORM_SOURCE_CORPUS_DIR_FOR_TESTS};
  apply_profile(options.knobs, ProfileId::kOcpFloor);
  const Certificate certificate = run_certification(options);
  EXPECT_FALSE(certificate.certified());
  EXPECT_EQ(certificate.cases, 0u);
  EXPECT_NE(verdict_table(certificate).find("no configuration fits both"), std::string::npos) << verdict_table(certificate);
}

TEST(ProfileCertify, AVersionOneInfoIsNeuronOnly) {
  const auto subject = open_subject(MXCONFORM_TEST_BACKEND_LEGACY_V1_INFO);
  const Capabilities declared = subject->capabilities();
  EXPECT_EQ(declared.profiles, 1u << static_cast<std::uint32_t>(ProfileId::kNeuron));
  EXPECT_EQ(declared.block_shapes, 1u << static_cast<std::uint32_t>(BlockShape::k8x4));
  QuantizeConfig floor;
  floor.partitions = 1;
  floor.free = 32;
  apply_profile(floor, ProfileId::kOcpFloor);
  EXPECT_NE(subject->unsupported_reason(floor).find("profile ocp-floor"), std::string::npos);
  // Neuron under certify: corpus passes, the profile cases are not supported.
  const Certificate certificate = certify_as(MXCONFORM_TEST_BACKEND_LEGACY_V1_INFO, ProfileId::kNeuron);
  EXPECT_TRUE(certificate.certified()) << verdict_table(certificate);
}

}  // namespace
}  // namespace mxconform::certify
