#pragma once
// The GoogleTest side of the property suite: one test per implementation and output dtype, the
// outcome printed, the seed and the reproduce string recorded as test properties (GoogleTest's XML
// has no place for them otherwise), and the test failed when the property failed or a promised
// coverage class was never hit.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "mxconform/subject.h"
#include "property_check.h"
#include "run_settings.h"

namespace mxconform::properties {

struct Target {
  const Subject* subject;
  OutputDtype output;
};

// "scalar, float8_e4m3fn", for GoogleTest's messages.
void PrintTo(const Target& target, std::ostream* out);

// Every implementation this CPU runs (the oracle first, unless `with_oracle` is false), each with
// every output dtype in `outputs` (all five when empty).
// Every runnable built-in (the oracle too when `with_oracle`) for each output dtype; or, when the
// environment variable MXCONFORM_SUBJECT names a subject (a built-in or a plug-in path), only it,
// for the output dtypes it declares.
std::vector<Target> targets(bool with_oracle, const std::vector<OutputDtype>& outputs = {});
// "scalar_float8_e4m3fn": the test name suffix.
std::string target_name(const ::testing::TestParamInfo<Target>& info);

// "Suite.Name" of the running test: the RapidCheck id of its property, so that a reproduce string
// replays with --gtest_filter set to it.
std::string current_test_id();

// Prints the outcome's report, records "seed", "level" and "reproduce", skips the test when the
// subject supports none of its cases, and fails it unless the outcome passed.
void report(const PropertyOutcome& outcome);

class PropertyTest : public ::testing::TestWithParam<Target> {
 protected:
  const Subject& subject() const { return *GetParam().subject; }
  CaseSpace space() const { return settings().space(subject(), {GetParam().output}); }
  // Read from the environment once per process.
  static const RunSettings& settings();
};

}  // namespace mxconform::properties
