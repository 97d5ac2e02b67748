// `mxconform certify` end to end through the library: the built-in implementations and the
// example backend are certified; each deliberately bad test backend (tests/backends) is reported
// with its own outcome, naming the case, and the campaign survives it.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "certification.h"
#include "mxconform/error.h"
#include "mxconform/registry.h"
#include "test_backends.h"

namespace mxconform::certify {
namespace {

std::size_t count(const Certificate& c, Outcome outcome) {
  std::size_t n = 0;
  for (const Tally& t : c.tallies) {
    const auto it = t.outcomes.find(name(outcome));
    if (it != t.outcomes.end()) n += it->second;
  }
  return n;
}

CertifyOptions options_for(const std::string& backend, std::vector<std::string> campaigns) {
  CertifyOptions options;
  options.backend = backend;
  options.campaigns = std::move(campaigns);
  options.corpus_paths = {MXCONFORM_SOURCE_CORPUS_DIR_FOR_TESTS};
  options.timeout_seconds = 5;
  return options;
}

const Failure& first_failure(const Certificate& c, Outcome outcome) {
  for (const Failure& f : c.failures) {
    if (f.outcome == outcome) return f;
  }
  static const Failure kNone;
  ADD_FAILURE() << "no failure with outcome " << name(outcome);
  return kNone;
}

// Every implementation in impl/ that this CPU runs is certified. One it cannot run is refused
// before any call, naming what it needs: its worker would die of SIGILL on every call, each
// counted a crash.
TEST(Certify, BuiltInImplementationsAreCertified) {
  for (const Subject* impl : built_in_subjects()) {
    if (impl->is_reference()) continue;
    const std::string backend(impl->name());
    if (!runnable_here(*impl)) {
      try {
        run_certification(options_for(backend, {"corpus"}));
        ADD_FAILURE() << backend << " cannot run on this CPU, yet certify did not refuse it";
      } catch (const Error& e) {
        const std::string expected = "backend '" + backend + "' needs CPU features " + impl->required_features().to_string();
        EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
      }
      std::printf("%s: refused, as this CPU cannot run it (%s)\n", backend.c_str(), not_runnable_reason(*impl).c_str());
      continue;
    }
    const Certificate c = run_certification(options_for(backend, {"corpus", "exhaustive", "properties"}));
    EXPECT_TRUE(c.certified()) << backend << "\n" << verdict_table(c);
    EXPECT_GT(count(c, Outcome::kPass), 400u) << backend;
    EXPECT_EQ(c.header.at("verdict"), "certified");
  }
}

// Strides that are not powers of two: the campaigns widen their tensors to shapes the stride
// allows, and the scalar kernel (independent of the oracle) agrees with every expected byte.
TEST(Certify, ScalarIsCertifiedWithOddLaneStrides) {
  for (std::uint32_t stride : {3u, 31u}) {
    CertifyOptions options = options_for("scalar", {"exhaustive", "properties"});
    options.knobs.fp4_lane_stride = stride;
    const Certificate c = run_certification(options);
    EXPECT_TRUE(c.certified()) << "stride " << stride << ": " << count(c, Outcome::kError) << " errors, "
                               << count(c, Outcome::kWrongResult) << " wrong results";
    EXPECT_GT(count(c, Outcome::kPass), 0u);
  }
}

TEST(Certify, OracleIsCertifiedOnTheCorpus) {
  const Certificate c = run_certification(options_for("oracle", {"corpus"}));
  EXPECT_TRUE(c.certified()) << verdict_table(c);
}

TEST(Certify, ExampleBackendIsCertified) {
  const Certificate c = run_certification(options_for(MXCONFORM_TEST_BACKEND_EXAMPLE, {"corpus", "exhaustive", "properties"}));
  EXPECT_TRUE(c.certified()) << verdict_table(c);
  EXPECT_EQ(c.header.at("backend_sha256").size(), 64u);
}

TEST(Certify, CrashOnNanIsACrashNamingTheCase) {
  const Certificate c = run_certification(options_for(MXCONFORM_TEST_BACKEND_CRASH_ON_NAN, {"corpus"}));
  EXPECT_FALSE(c.certified());
  EXPECT_GT(count(c, Outcome::kCrash), 0u);
  EXPECT_GT(count(c, Outcome::kPass), 0u) << "the campaign must go on after a crash";
  const Failure& f = first_failure(c, Outcome::kCrash);
  EXPECT_NE(f.detail.find("signal 11"), std::string::npos) << f.detail;
  EXPECT_FALSE(f.case_id.empty());
}

TEST(Certify, HangOnZeroBlockIsAHang) {
  CertifyOptions options = options_for(MXCONFORM_TEST_BACKEND_HANG_ON_ZERO_BLOCK, {"corpus"});
  options.timeout_seconds = 1;
  const Certificate c = run_certification(options);
  EXPECT_GT(count(c, Outcome::kHang), 0u);
  EXPECT_GT(count(c, Outcome::kPass), 0u);
}

TEST(Certify, OutOfBoundsWritesAreNamed) {
  struct Expectation {
    const char* backend;
    Outcome outcome;
    const char* detail;
  };
  const Expectation cases[] = {
      {MXCONFORM_TEST_BACKEND_WRITE_PAST_DATA, Outcome::kWritePastEnd, "past the end of the data buffer"},
      {MXCONFORM_TEST_BACKEND_WRITE_BEFORE_DATA, Outcome::kWriteBeforeStart, "before the start of the data buffer"},
      {MXCONFORM_TEST_BACKEND_WRITE_INTO_INPUT, Outcome::kWriteIntoInput, "of the input buffer"},
  };
  for (const Expectation& e : cases) {
    const Certificate c = run_certification(options_for(e.backend, {"corpus"}));
    EXPECT_FALSE(c.certified()) << e.backend;
    EXPECT_GT(count(c, e.outcome), 0u) << e.backend << "\n" << verdict_table(c);
    EXPECT_NE(first_failure(c, e.outcome).detail.find(e.detail), std::string::npos)
        << e.backend << ": " << first_failure(c, e.outcome).detail;
  }
}

TEST(Certify, WriteIntoAnUnnamedScaleRowIsNamed) {
  const Certificate c = run_certification(options_for(MXCONFORM_TEST_BACKEND_WRITE_UNNAMED_SCALE_ROW, {"corpus", "properties"}));
  EXPECT_GT(count(c, Outcome::kWriteUnnamedScaleRow), 0u) << verdict_table(c);
  EXPECT_NE(first_failure(c, Outcome::kWriteUnnamedScaleRow).detail.find("no slot names it"), std::string::npos);
}

TEST(Certify, OneWrongRoundingDecisionGivesAOneBlockRepro) {
  const Certificate c = run_certification(options_for(MXCONFORM_TEST_BACKEND_WRONG_ROUNDING, {"exhaustive"}));
  EXPECT_FALSE(c.certified());
  const Failure& f = first_failure(c, Outcome::kWrongResult);
  EXPECT_NE(f.repro_yaml.find("[8, 4]"), std::string::npos) << f.repro_yaml;
  std::printf("wrong_rounding repro:\n%s\n", f.repro_yaml.c_str());
}

TEST(Certify, ACorpusCasesReproKeepsItsIdWhyAndSourceAndSaysWhatFailed) {
  const Certificate c = run_certification(options_for(MXCONFORM_TEST_BACKEND_WRONG_ROUNDING, {"corpus"}));
  ASSERT_FALSE(c.failures.empty());
  const Failure& f = c.failures.front();
  EXPECT_NE(f.repro_yaml.find("Shrunk from corpus case " + f.case_id), std::string::npos) << f.repro_yaml;
  EXPECT_NE(f.repro_yaml.find("where certify saw wrong-result: "), std::string::npos) << f.repro_yaml;
  EXPECT_NE(f.repro_yaml.find("docs/contract.md"), std::string::npos) << "the original source\n" << f.repro_yaml;
  EXPECT_EQ(f.repro_yaml.find("failed with seed"), std::string::npos) << "no property boilerplate\n" << f.repro_yaml;
}

TEST(Certify, ErrorStatusIsAnError) {
  const Certificate c = run_certification(options_for(MXCONFORM_TEST_BACKEND_ERROR_STATUS, {"corpus"}));
  EXPECT_GT(count(c, Outcome::kError), 0u);
  EXPECT_FALSE(c.certified());
}

TEST(Certify, Fp8OnlyBackendIsNotSupportedForFp4NotFailed) {
  const Certificate c = run_certification(options_for(MXCONFORM_TEST_BACKEND_FP8_ONLY, {"corpus", "exhaustive"}));
  EXPECT_GT(count(c, Outcome::kUnsupported), 0u);
  EXPECT_TRUE(c.certified()) << verdict_table(c);
  // The headline says what was certified; the FP4 configurations fold into one line.
  const std::string table = verdict_table(c);
  EXPECT_NE(table.find("\nCERTIFIED for "), std::string::npos) << table;
  EXPECT_NE(table.find(" declared not supported. "), std::string::npos) << table;
  EXPECT_NE(table.find("not supported, as the backend declares: "), std::string::npos) << table;
  EXPECT_NE(table.find("-> float4_e2m1fn_x4"), std::string::npos) << table;
  EXPECT_EQ(table.find("float4_e2m1fn_x4 emax_mode"), std::string::npos) << "no table row for an FP4 configuration\n" << table;
  for (const Tally& t : c.tallies) {
    if (t.output == "float4_e2m1fn_x4") {
      EXPECT_FALSE(t.unsupported.empty()) << t.configuration;
    }
  }
}

// A certificate in which no requested configuration ran is no certificate. Asked for EMAX mode
// emax-1 by name, a backend that declares only emax has nothing to run: the corpus's emax cases
// are not the request (a neuron knob nobody named still runs the corpus cases of every value).
TEST(Certify, NoRequestedConfigurationSupportedIsNotCertified) {
  CertifyOptions asked = options_for(MXCONFORM_TEST_BACKEND_EMAX_ONLY, {"corpus", "properties"});
  asked.knobs.emax_mode = EmaxMode::kEmaxMinus1;
  asked.named_knobs.emax_mode = true;
  const Certificate c = run_certification(asked);
  EXPECT_FALSE(c.certified()) << verdict_table(c);
  EXPECT_EQ(c.header.at("verdict"), "not certified");
  EXPECT_EQ(count(c, Outcome::kPass), 0u) << verdict_table(c);
  for (const Tally& t : c.tallies) {
    EXPECT_NE(t.configuration.find("emax_mode=emax-1"), std::string::npos) << "not asked for: " << t.configuration;
  }
  EXPECT_EQ(c.why_not_certified(), "none of the requested configurations is supported by the backend: not declared: EMAX mode emax-1");
  const std::string table = verdict_table(c);
  EXPECT_NE(table.find("\nreason: none of the requested configurations is supported by the backend: "), std::string::npos)
      << table;
  EXPECT_NE(to_yaml(c).find("verdict_reason: \"none of the requested configurations"), std::string::npos) << to_yaml(c);
  // The rerun repeats the flag given, and only the knob flags given.
  EXPECT_NE(c.header.at("rerun").find(" --emax-mode emax-1 "), std::string::npos) << c.header.at("rerun");
  EXPECT_EQ(c.header.at("rerun").find("--fp8-nan"), std::string::npos) << c.header.at("rerun");

  // The same knob value, not named: the corpus's cases of other EMAX modes run, as they always have.
  CertifyOptions unnamed = options_for(MXCONFORM_TEST_BACKEND_EMAX_ONLY, {"corpus"});
  unnamed.knobs.emax_mode = EmaxMode::kEmaxMinus1;
  const Certificate corpus = run_certification(unnamed);
  EXPECT_TRUE(corpus.certified()) << verdict_table(corpus);
  EXPECT_GT(count(corpus, Outcome::kPass), 0u);
}

// --emit-repro into a directory an earlier run filled: the repro file of the same id is left as
// it was, and the report says so instead of "repro written to".
TEST(Certify, AReproFileAlreadyThereIsNotReportedAsWritten) {
  const std::string dir = ::testing::TempDir() + "/mxconform-emit-repro-" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  CertifyOptions options = options_for(MXCONFORM_TEST_BACKEND_WRONG_ROUNDING, {"corpus"});
  options.emit_repro_dir = dir;
  const Certificate first = run_certification(options);
  ASSERT_FALSE(first.failures.empty());
  const std::string path = first.failures.front().repro_path;
  EXPECT_FALSE(first.failures.front().repro_existed);
  EXPECT_NE(verdict_table(first).find("  repro written to " + path + "\n"), std::string::npos) << verdict_table(first);
  // An earlier run's file (here: edited since) under the same name.
  {
    std::FILE* file = std::fopen(path.c_str(), "a");
    ASSERT_NE(file, nullptr);
    std::fputs("# edited by hand\n", file);
    std::fclose(file);
  }
  const Certificate again = run_certification(options);
  ASSERT_FALSE(again.failures.empty());
  EXPECT_EQ(again.failures.front().repro_path, path);
  EXPECT_TRUE(again.failures.front().repro_existed);
  const std::string table = verdict_table(again);
  EXPECT_EQ(table.find("repro written to " + path), std::string::npos) << table;
  EXPECT_NE(table.find("  repro not written: " + path + " was there already"), std::string::npos) << table;
  EXPECT_NE(to_yaml(again).find("repro_file_existed: true"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(Certify, LibrariesThatAreNotBackendsAreNotCertifiedWithTheReason) {
  const Certificate missing_symbol = run_certification(options_for(MXCONFORM_TEST_BACKEND_NOT_A_BACKEND, {"corpus"}));
  EXPECT_FALSE(missing_symbol.certified());
  EXPECT_EQ(missing_symbol.header.at("verdict"), "not certified");
  EXPECT_NE(missing_symbol.header.at("load_error").find("mxconform_backend_v1"), std::string::npos)
      << missing_symbol.header.at("load_error");
  const Certificate abi = run_certification(options_for(MXCONFORM_TEST_BACKEND_WRONG_ABI_VERSION, {"corpus"}));
  EXPECT_FALSE(abi.certified());
  EXPECT_NE(abi.header.at("load_error").find("ABI version 99"), std::string::npos) << abi.header.at("load_error");
}

TEST(Certify, AMissingLibraryIsAUsageErrorNotAVerdict) {
  EXPECT_THROW(run_certification(options_for("/nonexistent/libnothing.so", {"corpus"})), Error);
  EXPECT_THROW(run_certification(options_for("no-such-built-in", {"corpus"})), Error);
}

TEST(Certify, ShardsMergeIntoTheWholeCampaign) {
  CertifyOptions whole = options_for("avx2", {"corpus"});
  const Certificate all = run_certification(whole);
  std::vector<Certificate> shards;
  for (std::size_t i = 0; i < 3; ++i) {
    CertifyOptions part = whole;
    part.shard_index = i;
    part.shard_count = 3;
    shards.push_back(run_certification(part));
  }
  const Certificate merged = merge(shards);
  EXPECT_EQ(merged.cases, all.cases);
  EXPECT_EQ(count(merged, Outcome::kPass), count(all, Outcome::kPass));
  // A certificate survives its own YAML.
  const std::string path = ::testing::TempDir() + "/mxconform-certificate.yaml";
  std::FILE* file = std::fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  const std::string yaml = to_yaml(merged);
  std::fwrite(yaml.data(), 1, yaml.size(), file);
  std::fclose(file);
  EXPECT_EQ(count(read_certificate(path), Outcome::kPass), count(all, Outcome::kPass));
  EXPECT_NE(to_junit(merged).find("<testsuite name=\"corpus\""), std::string::npos);
}

}  // namespace
}  // namespace mxconform::certify
