// certify --profile (certify/profile_campaign.h): a plug-in written from a profile's definition
// (tests/backends/profile_*.c) is CERTIFIED under that profile; the same rules declared as another
// profile are NOT CERTIFIED, and the first failure is one of the cases on which the two differ.
// A plug-in whose info ends before the profile fields is neuron-only. Restricted to the corpus and
// properties campaigns at gate level: seconds.
#include <gtest/gtest.h>

#include <set>
#include <string>

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
      {MXCONFORM_TEST_BACKEND_PROFILE_OCP_FLOOR, ProfileId::kOcpFloor},
      {MXCONFORM_TEST_BACKEND_PROFILE_TORCHAO_RCEIL, ProfileId::kTorchaoRceil},
      {MXCONFORM_TEST_BACKEND_PROFILE_TE_MXFP8, ProfileId::kTransformerEngineMxfp8},
      {MXCONFORM_TEST_BACKEND_PROFILE_MICROXCALING, ProfileId::kMicroxcaling},
      {MXCONFORM_TEST_BACKEND_PROFILE_NKI_GOLDEN, ProfileId::kNkiGolden},
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
                          {"te.inf-in-block", "te.nan-in-block", "te.byte-0-scales-by-one"});
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
