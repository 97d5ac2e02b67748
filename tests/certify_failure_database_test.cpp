// The failure database (certify/failure_database.h): certify adds each new failure's repro to it,
// never over a file, replays it first (campaign "failures") on the next run, and a fixed backend
// passes it; its default place follows XDG_CACHE_HOME; a file that does not load is named. Every
// test works in a directory of its own, never in the user's cache.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "certification.h"
#include "corpus_loader.h"
#include "failure_database.h"
#include "mxconform/error.h"
#include "test_backends.h"

namespace mxconform::certify {
namespace {

namespace fs = std::filesystem;

std::string temp_dir(const std::string& stem) {
  const fs::path dir = fs::path(::testing::TempDir()) /
                       ("mxconform-failure-database-test-" + std::to_string(::getpid()) + "-" + stem);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

// File name -> content.
using Files = std::map<std::string, std::string>;
Files files_in(const std::string& dir) {
  std::map<std::string, std::string> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream in(entry.path());
    out[entry.path().filename().string()] = std::string(std::istreambuf_iterator<char>(in), {});
  }
  return out;
}

std::string names(const Files& files) {
  std::string out;
  for (const auto& entry : files) out += entry.first + "\n";
  return out;
}

CertifyOptions with_database(const std::string& backend, const std::string& dir) {
  CertifyOptions options;
  options.backend = backend;
  options.campaigns = {"properties"};
  options.timeout_seconds = 5;
  options.failure_database = true;
  options.failure_database_dir = dir;
  return options;
}

std::size_t cases_of(const Certificate& c, const std::string& campaign, const std::string& outcome) {
  std::size_t n = 0;
  for (const Tally& t : c.tallies) {
    if (t.campaign != campaign) continue;
    const auto it = t.outcomes.find(outcome);
    if (it != t.outcomes.end()) n += it->second;
  }
  return n;
}

TEST(FailureDatabase, FailuresAreSavedReplayedFirstAndPassOnceFixed) {
  const std::string db = temp_dir("loop") + "/db";
  // 1. A backend with two bugs: its repros go into the (new) database, and each loads.
  const Certificate first = run_certification(with_database(MXCONFORM_TEST_BACKEND_TWO_BUGS, db));
  ASSERT_FALSE(first.certified());
  const auto saved = files_in(db);
  ASSERT_FALSE(saved.empty());
  EXPECT_EQ(saved.size(), first.failures.size());
  for (const auto& [file, text] : saved) {
    EXPECT_EQ(corpus::load_corpus_text(text, file).size(), 1u) << file;
    EXPECT_NE(text.find("mxconform replay --backend " + std::string(MXCONFORM_TEST_BACKEND_TWO_BUGS)), std::string::npos)
        << "a plug-in's repro says to replay it on the plug-in\n" << text;
    EXPECT_NE(text.find("\n# this repro: input=bfloat16 output=float8_e4m3fn (id 5) shape=[8, 4]"), std::string::npos)
        << "the header shows the repro's own first difference\n" << text;
    EXPECT_NE(text.find("\n# failure signature: wrong-result: "), std::string::npos) << text;
  }
  EXPECT_EQ(first.header.at("failure_database_cases"), "0");
  EXPECT_EQ(cases_of(first, "failures", "pass") + cases_of(first, "failures", "wrong-result"), 0u);

  // 2. The same run again: the saved repros run first and fail again; no file is rewritten.
  const Certificate second = run_certification(with_database(MXCONFORM_TEST_BACKEND_TWO_BUGS, db));
  ASSERT_FALSE(second.tallies.empty());
  EXPECT_EQ(second.tallies.front().campaign, "failures");
  EXPECT_EQ(second.header.at("failure_database_cases"), std::to_string(saved.size()));
  EXPECT_EQ(cases_of(second, "failures", "wrong-result"), saved.size());
  EXPECT_TRUE(files_in(db) == saved) << names(files_in(db)) << "\nwere\n" << names(saved);

  // 3. The fixed backend (the correct scalar behind the same ABI) passes the saved failures.
  const Certificate fixed = run_certification(with_database(MXCONFORM_TEST_BACKEND_SCALAR_VIA_ABI, db));
  EXPECT_EQ(cases_of(fixed, "failures", "pass"), saved.size()) << verdict_table(fixed);
  EXPECT_TRUE(files_in(db) == saved) << names(files_in(db)) << "\nwere\n" << names(saved);
  // scalar_via_abi declares every dtype; the repros are bfloat16 -> float8_e4m3fn cases.
  EXPECT_TRUE(fixed.certified()) << verdict_table(fixed);
  EXPECT_NE(verdict_table(fixed).find(std::to_string(saved.size()) + " past failure(s) replayed first, 0 added"),
            std::string::npos);
}

TEST(FailureDatabase, DefaultPlaceFollowsXdgCacheHome) {
  const std::string cache = temp_dir("xdg");
  ASSERT_EQ(::setenv("XDG_CACHE_HOME", cache.c_str(), 1), 0);
  EXPECT_EQ(default_failure_database("avx2", "avx2"), cache + "/mxconform/failures/avx2");
  const std::string plugin = default_failure_database(MXCONFORM_TEST_BACKEND_TWO_BUGS, "two bugs/..");
  EXPECT_EQ(plugin.rfind(cache + "/mxconform/failures/two_bugs_..-", 0), 0u) << plugin;
  EXPECT_EQ(plugin.size(), (cache + "/mxconform/failures/two_bugs_..-").size() + 12) << plugin;
  ASSERT_EQ(::setenv("XDG_CACHE_HOME", "relative/not/used", 1), 0);
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] == '/') {
    EXPECT_EQ(default_failure_database("scalar", "scalar"), std::string(home) + "/.cache/mxconform/failures/scalar");
  }
  ASSERT_EQ(::unsetenv("XDG_CACHE_HOME"), 0);
}

TEST(FailureDatabase, NoCacheDirectoryMeansNoDatabaseNotNoRun) {
  const char* home = std::getenv("HOME");
  const std::string saved_home = home == nullptr ? "" : home;
  ASSERT_EQ(::unsetenv("XDG_CACHE_HOME"), 0);
  ASSERT_EQ(::unsetenv("HOME"), 0);
  EXPECT_THROW(default_failure_database("scalar", "scalar"), Error);
  CertifyOptions options = with_database("scalar", "");
  options.campaigns = {"exhaustive"};
  options.level = Level::kGate;
  const Certificate c = run_certification(options);
  if (home != nullptr) ::setenv("HOME", saved_home.c_str(), 1);
  EXPECT_TRUE(c.certified()) << verdict_table(c);
  EXPECT_EQ(c.header.at("failure_database"), "none");
  EXPECT_NE(c.header.at("failure_database_error").find("--no-failure-database"), std::string::npos);
}

TEST(FailureDatabase, AFileThatDoesNotLoadIsNamed) {
  const std::string db = temp_dir("broken");
  EXPECT_TRUE(load_failure_database(db + "/absent").empty());
  EXPECT_TRUE(load_failure_database(db).empty());
  std::ofstream(db + "/bad.yaml") << "schema: 1\ncases: [oops\n";
  try {
    load_failure_database(db);
    ADD_FAILURE() << "no Error";
  } catch (const Error& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("bad.yaml"), std::string::npos) << what;
    EXPECT_NE(what.find("--no-failure-database"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace mxconform::certify
