#include "property_test.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "mxconform/registry.h"
#include "repro_writer.h"
#include "subject_from_environment.h"

namespace mxconform::properties {

std::vector<Target> targets(bool with_oracle, const std::vector<OutputDtype>& outputs) {
  std::vector<OutputDtype> chosen = outputs;
  if (chosen.empty()) {
    for (const OutputDtypeInfo& dtype : output_dtypes()) chosen.push_back(dtype.id);
  }
  std::vector<Target> all;
  if (const Subject* subject = testing_support::subject_from_environment()) {
    // Only the output dtypes the subject declares.
    for (OutputDtype output : chosen) {
      if ((subject->capabilities().output_dtypes >> static_cast<int>(output)) & 1) all.push_back({subject, output});
    }
    return all;
  }
  for (const Subject* impl : built_in_subjects()) {
    if (!runnable_here(*impl) || (!with_oracle && impl->is_reference())) continue;
    for (OutputDtype output : chosen) all.push_back({impl, output});
  }
  return all;
}

void PrintTo(const Target& target, std::ostream* out) { *out << target.subject->name() << ", " << name(target.output); }

std::string target_name(const ::testing::TestParamInfo<Target>& info) {
  std::string text = std::string(info.param.subject->name()) + "_" + std::string(name(info.param.output));
  for (char& c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return text;
}

std::string current_test_id() {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::string(test->test_suite_name()) + "." + test->name();
}

void report(const PropertyOutcome& outcome) {
  ::testing::Test::RecordProperty("seed", std::to_string(outcome.seed));
  ::testing::Test::RecordProperty("settings", outcome.settings);
  if (!outcome.reproduce.empty()) ::testing::Test::RecordProperty("reproduce", outcome.reproduce);
  const std::string text = outcome.report();
  if (outcome.outcome == Outcome::kUnsupported) GTEST_SKIP() << text;  // neither a pass nor a failure
  if (!outcome.passed()) {
    // The shrunk case as a ready-to-commit corpus file (corpus/repro_writer.h): expected bytes
    // from the oracle, id from the content, written under $MXCONFORM_REPRO_DIR or the build tree.
    std::string written;
    if (outcome.repro) {
      try {
        written = "\nshrunk case written as a corpus file: " +
                  corpus::write_repro_case(outcome.repro->config, outcome.repro->input, outcome.repro->property,
                                           outcome.seed) +
                  "\n  replay: mxconform replay <that file> --backend " + outcome.repro->subject + "\n";
        ::testing::Test::RecordProperty("repro_file", written);
      } catch (const std::exception& error) {
        written = std::string("\n(no corpus file: ") + error.what() + ")\n";
      }
    }
    ADD_FAILURE() << text << written;
    return;
  }
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

const RunSettings& PropertyTest::settings() {
  static const RunSettings kSettings = settings_from_environment();
  return kSettings;
}

}  // namespace mxconform::properties
