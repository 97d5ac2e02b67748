#include "property_check.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <sstream>
#include <unordered_map>
#include <vector>

#include <rapidcheck/detail/Serialization.h>


namespace mxconform::properties {

std::string reproduce_string(const std::unordered_map<std::string, rc::detail::Reproduce>& failures) {
  // RapidCheck's RC_PARAMS "reproduce" value: the map in RapidCheck's serialized form (its
  // installed Serialization.h), written 6 bits a character, least significant bit first, with the
  // alphabet below and no padding. property_check_test parses it back through RC_PARAMS.
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+_";
  constexpr int kBitsPerCharacter = 6;
  std::vector<std::uint8_t> bytes;
  rc::detail::serialize(failures, std::back_inserter(bytes));
  std::string text;
  unsigned pending_bits = 0;
  int pending_count = 0;
  for (const std::uint8_t byte : bytes) {
    pending_bits |= static_cast<unsigned>(byte) << pending_count;
    pending_count += 8;
    while (pending_count >= kBitsPerCharacter) {
      text += kAlphabet[pending_bits & 0b11'1111];
      pending_bits >>= kBitsPerCharacter;
      pending_count -= kBitsPerCharacter;
    }
  }
  if (pending_count > 0) text += kAlphabet[pending_bits & 0b11'1111];
  return text;
}

namespace {

// The repro and summary of the case being checked, set by fail_with just before it throws.
struct PendingFailure {
  std::optional<Repro> repro;
  std::string summary;
};
PendingFailure& pending() {
  static PendingFailure failure;
  return failure;
}

// Thrown by the listener to end shrinking once its budget is spent.
struct ShrinkBudgetSpent {};

// Follows the search and the shrinking, and ends the shrinking at its time budget: RapidCheck
// would otherwise try every remaining shrink of the current case, which for a large tensor takes
// far longer than the budget even when each try is rejected at once. Prints nothing.
class ShrinkListener : public rc::detail::TestListener {
 public:
  explicit ShrinkListener(detail::RunState& state) : state_(state) {}
  void onTestCaseFinished(const rc::detail::CaseDescription&) override { ++search_cases; }
  void onShrinkTried(const rc::detail::CaseDescription&, bool accepted) override {
    if (accepted) {
      path.push_back(tries_since_accepted_);
      tries_since_accepted_ = 0;
    } else {
      ++tries_since_accepted_;
    }
    if (state_.past_shrink_budget()) throw ShrinkBudgetSpent{};
  }
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}

  int search_cases = 0;           // including the failing one
  std::vector<std::size_t> path;  // RapidCheck's shrink path: rejected tries before each accepted one

 private:
  detail::RunState& state_;
  std::size_t tries_since_accepted_ = 0;
};

// RapidCheck's size for search case i (src/detail/Testing.cpp, sizeFor): sizes spread evenly over
// [0, maxSize], the largest always used.
int size_for(const rc::detail::TestParams& params, int i) {
  const int sizes = params.maxSize + 1;
  const int regular = (params.maxSuccess / sizes) * sizes;
  if (i < regular) return i % sizes;
  const int rest = params.maxSuccess - regular;
  return rest == 1 ? 0 : ((i % sizes) * params.maxSize) / (rest - 1);
}

// The Reproduce RapidCheck would report for a failure at search case `failing` (0-based, no
// discards: the suite never discards) shrunk along `path`: each case draws the next split of
// Random(seed) and the size above (src/detail/Testing.cpp, searchProperty).
rc::detail::Reproduce reproduce_of(const rc::detail::TestParams& params, int failing,
                                   const std::vector<std::size_t>& path) {
  rc::Random seeds(params.seed);
  rc::Random random;
  for (int i = 0; i <= failing; ++i) random = seeds.split();
  return rc::detail::Reproduce{random, size_for(params, failing), path};
}

// The failures RC_PARAMS asks to reproduce. RapidCheck's configuration is read only when RC_PARAMS
// is set, since reading it prints a line (and a seed this suite does not use).
const std::unordered_map<std::string, rc::detail::Reproduce>& reproduce_requests() {
  static const std::unordered_map<std::string, rc::detail::Reproduce> kNone;
  return std::getenv("RC_PARAMS") == nullptr ? kNone : rc::detail::configuration().reproduce;
}

std::string this_program() {
  char path[4096];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  return length > 0 ? std::string(path, static_cast<std::size_t>(length)) : std::string("<test binary>");
}

std::string one_line(const std::string& text) {
  std::string line;
  for (char c : text) line += c == '\n' ? ' ' : c;
  return line;
}

}  // namespace

void fail_with(Repro repro, const std::string& summary) {
  pending() = {std::move(repro), summary};
  RC_FAIL(summary);
}

void require_same(const std::string& property, const Subject& subject, const std::string& expectation,
                  const QuantizeCase& c, const Outputs& expected, const Outputs& actual, const std::string& detail) {
  if (expected == actual) return;
  Repro repro{property, std::string(subject.name()), expectation, detail, c.config, c.input, expected, actual};
  const Comparison comparison = compare(repro);
  // compare() checks unnamed scale rows here, so an equal comparison means the outputs differ only
  // in bytes the profile leaves unspecified (with_unspecified_from): the property holds.
  if (comparison.equal()) return;
  std::string summary;
  if (const Difference* d = comparison.first_data()) {
    const ElementDifference& e = d->elements.front();
    summary = "element " + std::to_string(e.index) + " of block (" + std::to_string(e.group) + ", " +
              std::to_string(e.column_block) + ") differs";
  } else {
    summary = "scale byte " + std::to_string(comparison.first_scale()->offset) + " differs";
  }
  fail_with(std::move(repro), summary + " (" + std::to_string(differing_elements(comparison)) + " elements, " +
                                  std::to_string(comparison.scale_differences) + " scale bytes)");
}

namespace detail {

bool RunState::past_shrink_budget() {
  if (shrinking_ && !budget_hit_ && Clock::now() - shrink_start_ > shrink_budget_) budget_hit_ = true;
  return budget_hit_;
}

void RunState::begin_case() { pending() = {}; }

void RunState::record_failure() {
  if (!shrinking_) {
    shrinking_ = true;
    shrink_start_ = Clock::now();
  }
  last_repro = std::move(pending().repro);
  last_summary = std::move(pending().summary);
  pending() = {};
}

PropertyOutcome execute(const rc::detail::Property& rc_property, RunState& state, PropertyOutcome outcome,
                        const RunSettings& settings, int cases) {
  rc::detail::TestMetadata metadata;
  metadata.id = outcome.id;
  metadata.description = outcome.id;
  rc::detail::TestParams params;
  params.seed = settings.seed;
  params.maxSuccess = cases;
  params.maxSize = rc::kNominalSize;  // never above: see index_gen.h
  const auto& requests = reproduce_requests();
  ShrinkListener listener(state);
  const auto start = std::chrono::steady_clock::now();
  const rc::detail::TestResult result = [&]() -> rc::detail::TestResult {
    try {
      return rc::detail::checkProperty(rc_property, metadata, params, listener, requests);
    } catch (const ShrinkBudgetSpent&) {  // the smallest failure so far stands, as RapidCheck would report it
      const int failing = listener.search_cases - 1;
      rc::detail::FailureResult failure;
      failure.numSuccess = failing;
      failure.reproduce = reproduce_of(params, failing, listener.path);
      return failure;
    }
  }();
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  outcome.settings = describe(settings);
  outcome.seed = settings.seed;
  outcome.replay = requests.count(outcome.id) != 0;
  outcome.coverage = state.coverage;
  outcome.shrinks = static_cast<int>(listener.path.size());
  outcome.shrink_budget_hit = state.budget_hit();
  outcome.shrink_budget_seconds = state.budget();
  outcome.unsupported_cases = state.unsupported_cases;
  if (result.is<rc::detail::SuccessResult>()) {
    outcome.passed_cases = result.get<rc::detail::SuccessResult>().numSuccess;
    if (!outcome.replay) outcome.missed = outcome.coverage.missed(outcome.promised);
    return outcome;
  }
  if (result.is<rc::detail::GaveUpResult>() && state.unsupported_cases > 0 &&
      result.get<rc::detail::GaveUpResult>().numSuccess == 0) {
    outcome.outcome = Outcome::kUnsupported;  // every case drawn was one the subject does not support
    outcome.message = result.get<rc::detail::GaveUpResult>().description;
    return outcome;
  }
  outcome.outcome = Outcome::kError;  // RapidCheck gave up or erred, unless a case failed (below)
  if (result.is<rc::detail::FailureResult>()) {
    const auto& failure = result.get<rc::detail::FailureResult>();
    if (!state.subject_error()) outcome.outcome = Outcome::kWrongResult;
    outcome.passed_cases = failure.numSuccess;
    outcome.message = state.last_summary.empty() ? failure.description : state.last_summary;
    outcome.reproduce = reproduce_string({{outcome.id, failure.reproduce}});
    outcome.repro = state.last_repro;
    // The reconstruction above must agree with RapidCheck wherever RapidCheck reports itself.
    const bool reconstructed = failure.reproduce == reproduce_of(params, failure.numSuccess, listener.path);
    if (!outcome.replay && !reconstructed) outcome.message += " [the reproduce reconstruction disagrees]";
  } else {
    std::ostringstream text;
    rc::detail::printResultMessage(result, text);
    outcome.message = text.str();
  }
  return outcome;
}

}  // namespace detail

std::string PropertyOutcome::report() const {
  std::ostringstream out;
  char seconds_text[32];
  std::snprintf(seconds_text, sizeof seconds_text, "%.1f s", seconds);
  if (outcome == Outcome::kUnsupported) {
    out << "property " << property << " not supported by " << subject << ": " << unsupported_cases
        << " cases drawn, none in a configuration it supports (" << one_line(message) << ")\n";
    return out.str();
  }
  if (!failed()) {
    out << "property " << property << " held for " << subject << " on " << passed_cases << " cases in " << seconds_text
        << " (" << settings << ")\n";
    if (unsupported_cases > 0) {
      out << unsupported_cases << " cases drawn in configurations " << subject << " does not support were skipped\n";
    }
    if (!replay) out << coverage.table(shown, promised);
    for (CoverageClass never : missed) out << "coverage: promised class never hit: " << name(never) << "\n";
    return out.str();
  }
  out << "property " << property << " FAILED (" << name(outcome) << ") for " << subject << " at case "
      << passed_cases + 1 << "\n";
  out << "  must hold " << statement << "\n";
  if (shrink_budget_hit) {
    out << "  shrinking stopped at its budget of " << shrink_budget_seconds << " s after " << shrinks
        << " steps: the case below fails but may not be minimal\n";
  } else {
    out << "  shrunk in " << shrinks << " steps, " << seconds_text << " in all\n";
  }
  out << "  failure   " << one_line(message) << "\n";
  if (repro) out << format_repro(*repro);
  out << "  settings  " << settings << "; MXCONFORM_PROPERTY_SEED=" << seed << " reruns the search\n";
  if (!reproduce.empty()) {
    out << "  reproduce RC_PARAMS=\"reproduce=" << reproduce << "\" " << this_program() << " --gtest_filter='"
        << id.substr(0, id.find('#')) << "'\n";
  }
  return out.str();
}

}  // namespace mxconform::properties
