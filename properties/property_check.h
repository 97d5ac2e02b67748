#pragma once
// Runs one property against one implementation with RapidCheck: the seed of the run settings,
// shrinking bounded in time, coverage counted over the generated cases, and an outcome that carries
// the shrunk repro, the seed and RapidCheck's reproduce string.
#include <rapidcheck.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "coverage.h"
#include "mxconform/outcome.h"
#include "mxconform/subject.h"
#include "repro.h"
#include "run_settings.h"

namespace mxconform::properties {

// A property: cases, and a check over one case that uses RC_ASSERT, RC_FAIL or fail_with.
template <typename Case>
struct Property {
  Property(std::string property_name, std::string what_must_hold, rc::Gen<Case> generator)
      : name(std::move(property_name)), statement(std::move(what_must_hold)), cases(std::move(generator)) {}

  std::string name;       // e.g. "differential"
  std::string statement;  // what must hold, one line
  rc::Gen<Case> cases;
  int gate_cases = 100;
  std::function<void(const Case&)> check;
  std::function<const QuantizeCase&(const Case&)> base;  // what coverage classifies
  std::vector<CoverageClass> shown;                      // the rows of the coverage table
  std::vector<CoverageClass> promised;                   // a run that hits none of one fails
};

struct PropertyOutcome {
  std::string id;  // the name RapidCheck knows the run by: its reproduce string is keyed on it
  std::string property;
  std::string statement;
  std::string subject;
  std::string settings;  // describe(RunSettings)
  std::uint64_t seed = 0;
  // kPass; kWrongResult when a case broke the property, kError when the subject threw or
  // RapidCheck erred or gave up; kUnsupported when the subject declared every case's
  // configuration unsupported (no case ran).
  Outcome outcome = Outcome::kPass;
  int unsupported_cases = 0;  // cases skipped: the subject does not support their configuration
  bool replay = false;  // RC_PARAMS asked to reproduce this id: one case, no coverage promise
  int passed_cases = 0;
  int shrinks = 0;  // accepted shrinking steps
  bool shrink_budget_hit = false;
  double shrink_budget_seconds = 0;
  double seconds = 0;
  std::string message;         // RapidCheck's description of the failure
  std::string reproduce;       // the RC_PARAMS value that replays the shrunk case
  std::optional<Repro> repro;  // the shrunk case, when the property recorded one
  Coverage coverage;
  std::vector<CoverageClass> shown;
  std::vector<CoverageClass> promised;
  std::vector<CoverageClass> missed;  // promised classes no case hit (empty in replays)

  bool failed() const { return is_failure(outcome); }
  bool passed() const { return outcome == Outcome::kPass && missed.empty(); }
  // The whole account: the failure with its repro, seed and reproduce command, or the pass
  // line; then the coverage table.
  std::string report() const;
};

// Fails the current case, recording `repro` as its record; `summary` becomes RapidCheck's message.
// Only inside a property's check.
[[noreturn]] void fail_with(Repro repro, const std::string& summary);

// Fails the current case unless `actual` equals `expected`, byte for byte, recording a repro.
void require_same(const std::string& property, const Subject& subject, const std::string& expectation,
                  const QuantizeCase& c, const Outputs& expected, const Outputs& actual,
                  const std::string& detail = "");

namespace detail {

// The untyped state of one run, shared by the typed case loop and the runner.
class RunState {
 public:
  explicit RunState(double shrink_seconds) : shrink_budget_(shrink_seconds) {}
  bool shrinking() const { return shrinking_; }
  // True once shrinking has run past its budget: the case loop accepts no new case and the
  // listener ends the shrinking.
  bool past_shrink_budget();
  void begin_case();
  void record_failure();  // takes the pending repro and summary; the first failure starts the shrink clock
  // A case skipped because the subject does not support its configuration (RC_DISCARD).
  void record_unsupported() { ++unsupported_cases; }
  // The last failure was the subject's own exception, not a broken property.
  void record_subject_error(bool thrown) { subject_error_ = thrown; }
  bool subject_error() const { return subject_error_; }
  bool budget_hit() const { return budget_hit_; }
  double budget() const { return shrink_budget_.count(); }

  Coverage coverage;
  std::optional<Repro> last_repro;
  std::string last_summary;
  int unsupported_cases = 0;

 private:
  using Clock = std::chrono::steady_clock;
  std::chrono::duration<double> shrink_budget_;
  bool shrinking_ = false;
  bool budget_hit_ = false;
  bool subject_error_ = false;
  Clock::time_point shrink_start_;
};

PropertyOutcome execute(const rc::detail::Property& rc_property, RunState& state, PropertyOutcome outcome,
                        const RunSettings& settings, int cases);

}  // namespace detail

// The value RC_PARAMS="reproduce=..." takes to replay `failures` (RapidCheck test id -> where its
// shrunk failure is), as RapidCheck prints it for its own runs.
std::string reproduce_string(const std::unordered_map<std::string, rc::detail::Reproduce>& failures);

// Runs `property` against `subject` as RapidCheck test `id`, which a failure's reproduce string
// names: the running gtest test's full name, followed by '#' and a qualifier when one test runs
// several properties. The report's replay command filters on the part before '#'.
template <typename Case>
PropertyOutcome run_property(const Property<Case>& property, const Subject& subject, const RunSettings& settings,
                             const std::string& id) {
  detail::RunState state(settings.shrink_seconds);
  std::optional<Case> failing;  // the smallest failing case so far
  const auto rc_property = rc::detail::toProperty([&] {
    const Case c = *property.cases;
    if (state.past_shrink_budget() && !(failing && c == *failing)) return;  // out of shrink time
    if (!state.shrinking()) state.coverage.add(property.base(c));
    state.begin_case();
    try {
      property.check(c);
    } catch (const rc::detail::CaseResult& result) {  // RC_ASSERT, RC_FAIL, or RC_DISCARD (not supported)
      if (result.type == rc::detail::CaseResult::Type::Success) throw;
      if (result.type == rc::detail::CaseResult::Type::Discard) {
        state.record_unsupported();
        throw;
      }
      failing = c;
      state.record_failure();
      state.record_subject_error(false);
      throw;
    } catch (...) {  // the subject's own error
      failing = c;
      state.record_failure();
      state.record_subject_error(true);
      throw;
    }
  });
  PropertyOutcome outcome;
  outcome.id = id;
  outcome.property = property.name;
  outcome.statement = property.statement;
  outcome.subject = std::string(subject.name());
  outcome.shown = property.shown;
  outcome.promised = property.promised;
  return detail::execute(rc_property, state, std::move(outcome), settings,
                         settings.cases(subject, property.gate_cases));
}

}  // namespace mxconform::properties
