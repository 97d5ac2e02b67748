// Certificates: the YAML certificate, JUnit XML, reading a certificate back, merging the
// certificates of shards, and the verdict table.
//
// Text from outside mxconform (a backend's name, description, path and messages, corpus case ids,
// repros) is held raw in a Certificate and escaped once, where it is emitted: with safe_text or
// safe_multiline_text (and U+FFFE, U+FFFF as \xNN) into the YAML certificate, the JUnit XML and
// the verdict table.
// read_certificate undoes the YAML escaping, so a certificate read back holds the bytes that were
// written, and a merged certificate emits them again unchanged, never escaped twice.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include <pugixml.hpp>
#include <yaml-cpp/yaml.h>

#include "certification.h"
#include "failure_groups.h"
#include "certificate_seal.h"
#include "mxconform/error.h"
#include "mxconform/input_file.h"
#include "mxconform/safe_text.h"

namespace mxconform::certify {
namespace {

// ---- Text from outside. ----

constexpr std::size_t kUncapped = std::numeric_limits<std::size_t>::max();
// Raw bytes the YAML certificate keeps of one field, and of one repro.
constexpr std::size_t kMaxFieldBytes = kDefaultSafeTextBytes;
constexpr std::size_t kMaxReproBytes = std::size_t{256} << 10;
// Raw bytes of one repro in the JUnit XML and the verdict table.
constexpr std::size_t kMaxShownReproBytes = std::size_t{64} << 10;

// At most max_bytes bytes: a longer text keeps its start and ends in "... (N more bytes)", the
// whole within max_bytes, so that cutting a cut text changes nothing.
std::string cut(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  const auto marker = [](std::size_t more) { return "... (" + std::to_string(more) + " more bytes)"; };
  const std::size_t keep = max_bytes - marker(text.size()).size();  // marker(fewer) is no longer
  return std::string(text.substr(0, keep)) + marker(text.size() - keep);
}

// The byte that `digits`, two hex digits, spell, or nothing.
std::optional<char> hex_byte(std::string_view digits) {
  unsigned value = 0;
  const char* end = digits.data() + digits.size();
  if (digits.size() != 2 || std::from_chars(digits.data(), end, value, 16).ptr != end) return std::nullopt;
  return static_cast<char>(value);
}

// The inverse of safe_text and safe_multiline_text: "\\" is one backslash, "\xNN" the byte NN.
// Any other backslash is kept as it is.
std::string unescaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::string_view rest = text.substr(i);
    if (rest.substr(0, 2) == "\\\\") {
      out += '\\';
      i += 1;
    } else if (const auto byte = rest.substr(0, 2) == "\\x" ? hex_byte(rest.substr(2, 2)) : std::nullopt) {
      out += *byte;
      i += 3;
    } else {
      out += text[i];
    }
  }
  return out;
}

// Whether yaml-cpp's literal block style gives the text back: it writes no indentation or
// chomping indicator, so the text must end in exactly one newline and start with neither a
// blank nor an empty line. Other text is written double-quoted.
bool literal_round_trips(std::string_view text) {
  return text.size() >= 2 && text.back() == '\n' && text[text.size() - 2] != '\n' && text.front() != ' ' &&
         text.front() != '\t' && text.front() != '\n';
}

// safe_text leaves UTF-8 without control characters, which may still hold the noncharacters
// U+FFFE and U+FFFF, outside both XML 1.0's Char and YAML's printable set: they are shown as
// \xNN as well (safe_text doubled every backslash, so this stays unambiguous).
std::string without_fffe_ffff(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "\xEF\xBF") == 0 && i + 2 < text.size() && (text[i + 2] == '\xBE' || text[i + 2] == '\xBF')) {
      out += text[i + 2] == '\xBE' ? "\\xEF\\xBF\\xBE" : "\\xEF\\xBF\\xBF";
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// Raw text as every report shows it: printable UTF-8 (plus newlines and tabs for `lines`).
std::string shown(std::string_view raw, std::size_t max_bytes = kDefaultSafeTextBytes) {
  return without_fffe_ffff(safe_text(raw, max_bytes));
}
std::string shown_lines(std::string_view raw, std::size_t max_bytes) {
  return without_fffe_ffff(safe_multiline_text(raw, max_bytes));
}

// A field as the YAML certificate holds it: cut, so that a cut text is cut no more, then shown.
std::string yaml_text(std::string_view raw) { return shown(cut(raw, kMaxFieldBytes), kUncapped); }
std::string yaml_lines(std::string_view raw) { return shown_lines(cut(raw, kMaxReproBytes), kUncapped); }

// ---- Counts and outcomes. ----

// A plain unsigned decimal within 64 bits: digits only, no sign, exponent, base prefix, blank or
// leading zero.
std::optional<std::uint64_t> decimal(std::string_view text) {
  if (text.empty() || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  std::uint64_t value = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(ch - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

// sum + more; throws Error("<what> overflow 64 bits") instead of wrapping.
std::size_t checked_sum(std::size_t sum, std::size_t more, const std::string& what) {
  if (more > kUncapped - sum) throw Error(what + " overflow 64 bits");
  return sum + more;
}

// Every enumerator from kPass on has a name; name() answers "?" past the last one.
Outcome outcome_named(const std::string& text) {
  for (int i = 0;; ++i) {
    const char* known = name(static_cast<Outcome>(i));
    if (std::strcmp(known, "?") == 0) break;
    if (text == known) return static_cast<Outcome>(i);
  }
  throw Error("unknown outcome '" + safe_text(text, 64) + "'");
}

// Whether a counted outcome keeps a certificate from certifying: every outcome but pass and
// not-supported (is_failure), and any name mxconform does not know.
bool counts_as_failure(const std::string& outcome) {
  return outcome != name(Outcome::kPass) && outcome != name(Outcome::kUnsupported);
}

}  // namespace

std::string Certificate::why_not_certified() const {
  if (header.count("load_error") != 0) return "the backend could not be loaded";
  if (!coverage_missed.empty()) return std::to_string(coverage_missed.size()) + " promised coverage class(es) missed";
  bool passed = false, declined = false;
  std::vector<std::string> reasons;  // why configurations are not supported, each once
  for (const Tally& t : tallies) {
    for (const auto& [outcome, count] : t.outcomes) {
      if (count > 0 && counts_as_failure(outcome)) return outcome + " counted";
      passed |= count > 0 && outcome == name(Outcome::kPass);
      declined |= count > 0 && outcome == name(Outcome::kUnsupported);
    }
    if (!t.unsupported.empty() && std::find(reasons.begin(), reasons.end(), t.unsupported) == reasons.end()) {
      reasons.push_back(t.unsupported);
    }
  }
  if (!failures.empty()) return std::to_string(failures.size()) + " failure(s) listed";
  if (passed) return "";
  if (!declined && reasons.empty()) return "no case passed";
  // Nothing passed and something was not supported: no requested configuration ran at all.
  std::string why = "none of the requested configurations is supported by the backend: ";
  if (reasons.empty()) return why + "every case was declined as not supported";
  constexpr std::size_t kReasonsShown = 3;
  for (std::size_t i = 0; i < std::min(reasons.size(), kReasonsShown); ++i) why += (i == 0 ? "" : "; ") + reasons[i];
  if (reasons.size() > kReasonsShown) why += "; and " + std::to_string(reasons.size() - kReasonsShown) + " more";
  return why;
}

bool Certificate::certified() const { return why_not_certified().empty(); }

namespace {

const char* verdict_text(bool certified) { return certified ? "certified" : "not certified"; }

// The failure groups, when there are any (certificates before them have none): each signature
// once; every failing case counted, in one group (the groups' counts sum to the failure outcome
// counts of the results); each group's `shown` the failures listed with its signature.
void check_groups(const Certificate& certificate) {
  if (certificate.failure_groups.empty()) return;
  std::size_t failing = 0, grouped = 0;
  for (const Tally& t : certificate.tallies) {
    for (const auto& [outcome, count] : t.outcomes) {
      if (counts_as_failure(outcome)) failing = checked_sum(failing, count, "the failure counts in results");
    }
  }
  std::set<std::string> signatures;
  for (const FailureGroup& g : certificate.failure_groups) {
    const std::string who = "failure group '" + safe_text(g.signature, 200) + "'";
    if (!signatures.insert(g.signature).second) throw Error(who + " twice: each signature once");
    for (const auto& [campaign, count] : g.failed) grouped = checked_sum(grouped, count, "the failure group counts");
    const auto listed = static_cast<std::size_t>(std::count_if(certificate.failures.begin(), certificate.failures.end(),
                                                               [&](const Failure& f) { return f.signature == g.signature; }));
    if (listed != g.shown) {
      throw Error(who + ": shown is " + std::to_string(g.shown) + ", but " + std::to_string(listed) +
                  " failure(s) with that signature are listed");
    }
  }
  if (grouped != failing) {
    throw Error("the failure groups count " + std::to_string(grouped) + " failing cases, but results count " +
                std::to_string(failing) + ": every failing case is in one group");
  }
  for (const Failure& f : certificate.failures) {
    if (signatures.count(f.signature) == 0) {
      throw Error("failure of case '" + safe_text(f.case_id, 200) + "' has a signature no failure group has");
    }
  }
}

// The rules every certificate keeps, read or about to be merged: known outcome names; `cases`
// equal to the sum of every outcome count over all results (each case is counted once, in one
// tally); the verdict the counts and failures give. Throws Error naming the rule.
void check_consistency(const Certificate& certificate) {
  std::size_t counted = 0;
  for (const Tally& t : certificate.tallies) {
    for (const auto& [outcome, count] : t.outcomes) {
      outcome_named(outcome);
      counted = checked_sum(counted, count, "the outcome counts in results");
    }
  }
  if (counted != certificate.cases) {
    throw Error("cases is " + std::to_string(certificate.cases) + ", but the outcome counts in results sum to " +
                std::to_string(counted) + ": every case is counted once");
  }
  check_groups(certificate);
  const auto verdict = certificate.header.find("verdict");
  if (verdict == certificate.header.end()) throw Error("no verdict");
  const std::string why = certificate.why_not_certified();
  if (verdict->second != verdict_text(why.empty())) {
    throw Error("verdict is '" + safe_text(verdict->second, 64) + "', but the counts and failures say '" +
                verdict_text(why.empty()) + "'" + (why.empty() ? "" : " (" + why + ")"));
  }
}

// ---- Reading a certificate. ----

// The top-level keys that are not header lines.
const std::set<std::string>& body_keys() {
  static const std::set<std::string> keys = {"mxconform_certificate", "verdict_reason", "cases", "configurations", "coverage",
                                             "coverage_missed", "results", "failures", "failure_groups",
                                             "integrity"};
  return keys;
}

std::size_t count_from(const YAML::Node& node, const std::string& field) {
  // A quoted or tagged scalar is not a count; yaml-cpp's own conversion would also take
  // "0x10", "010" (octal) and "+5".
  if (!node.IsScalar() || node.Tag() != "?") throw Error(field + ": not a count");
  const std::optional<std::uint64_t> value = decimal(node.Scalar());
  if (!value || *value > kUncapped) {
    throw Error(field + ": '" + safe_text(node.Scalar(), 64) + "' is not an unsigned decimal count within 64 bits");
  }
  return static_cast<std::size_t>(*value);
}

std::string text_from(const YAML::Node& node, const std::string& field) {
  if (!node.IsScalar()) throw Error(field + ": not text");
  return unescaped(node.Scalar());
}

// The entries of a YAML map, in order, after checking that the keys are text, each once, and
// (when `allowed` is not empty) among `allowed`.
std::vector<std::pair<std::string, YAML::Node>> map_entries(const YAML::Node& map, const std::string& field,
                                                            const std::set<std::string>& allowed = {}) {
  if (!map.IsMap()) throw Error(field + ": not a map");
  std::vector<std::pair<std::string, YAML::Node>> entries;
  std::set<std::string> seen;
  for (const auto& entry : map) {
    if (!entry.first.IsScalar()) throw Error(field + ": a key that is not text");
    const std::string key = entry.first.Scalar();
    const std::string shown_key = (field.empty() ? "" : field + ".") + safe_text(key, 64);
    if (!seen.insert(key).second) throw Error(shown_key + ": given twice");
    if (!allowed.empty() && allowed.count(key) == 0) throw Error(shown_key + ": unknown key");
    entries.emplace_back(key, entry.second);
  }
  return entries;
}

YAML::Node required(const YAML::Node& map, const std::string& key, const std::string& field) {
  const YAML::Node node = map[key];
  if (!node) throw Error((field.empty() ? "" : field + ".") + key + ": missing");
  return node;
}

void check_sequence(const YAML::Node& node, const std::string& field) {
  if (!node.IsSequence()) throw Error(field + ": not a list");
}

Tally tally_from(const YAML::Node& node, const std::string& field) {
  map_entries(node, field, {"campaign", "configuration", "output", "outcomes", "not_supported"});
  Tally t;
  t.campaign = text_from(required(node, "campaign", field), field + ".campaign");
  t.configuration = text_from(required(node, "configuration", field), field + ".configuration");
  t.output = text_from(required(node, "output", field), field + ".output");
  for (const auto& [outcome, count] : map_entries(required(node, "outcomes", field), field + ".outcomes")) {
    const std::string outcome_field = field + ".outcomes." + safe_text(outcome, 64);
    try {
      outcome_named(outcome);
    } catch (const Error& error) {
      throw Error(field + ".outcomes: " + error.what());
    }
    t.outcomes[outcome] = count_from(count, outcome_field);
  }
  if (node["not_supported"]) t.unsupported = text_from(node["not_supported"], field + ".not_supported");
  return t;
}

Failure failure_from(const YAML::Node& node, const std::string& field) {
  map_entries(node, field, {"campaign", "case", "configuration", "knobs", "outcome", "detail", "signature", "repro_difference",
                            "repro_file", "repro_file_existed", "repro"});
  Failure f;
  f.campaign = text_from(required(node, "campaign", field), field + ".campaign");
  f.case_id = text_from(required(node, "case", field), field + ".case");
  f.configuration = text_from(required(node, "configuration", field), field + ".configuration");
  f.knobs = text_from(required(node, "knobs", field), field + ".knobs");
  try {
    f.outcome = outcome_named(text_from(required(node, "outcome", field), field + ".outcome"));
  } catch (const Error& error) {
    throw Error(field + ".outcome: " + error.what());
  }
  f.detail = text_from(required(node, "detail", field), field + ".detail");
  if (node["signature"]) f.signature = text_from(node["signature"], field + ".signature");
  if (node["repro_difference"]) f.repro_detail = text_from(node["repro_difference"], field + ".repro_difference");
  if (node["repro_file"]) f.repro_path = text_from(node["repro_file"], field + ".repro_file");
  if (node["repro_file_existed"]) {
    const std::string existed = text_from(node["repro_file_existed"], field + ".repro_file_existed");
    if (existed != "true") throw Error(field + ".repro_file_existed: '" + safe_text(existed, 64) + "'; expected true");
    f.repro_existed = true;
  }
  f.repro_yaml = text_from(required(node, "repro", field), field + ".repro");
  return f;
}

FailureGroup group_from(const YAML::Node& node, const std::string& field) {
  map_entries(node, field, {"signature", "shown", "failed"});
  FailureGroup g;
  g.signature = text_from(required(node, "signature", field), field + ".signature");
  g.shown = count_from(required(node, "shown", field), field + ".shown");
  for (const auto& [campaign, count] : map_entries(required(node, "failed", field), field + ".failed")) {
    g.failed[unescaped(campaign)] = count_from(count, field + ".failed." + safe_text(campaign, 64));
  }
  return g;
}

Certificate certificate_from(const YAML::Node& root) {
  if (!root.IsMap() || !root["mxconform_certificate"] || !root["mxconform_certificate"].IsScalar() ||
      decimal(root["mxconform_certificate"].Scalar()) != std::optional<std::uint64_t>(1)) {
    throw Error("not an mxconform certificate (no mxconform_certificate: 1)");
  }
  Certificate c;
  for (const auto& [key, value] : map_entries(root, "")) {
    if (body_keys().count(key) == 0) c.header[unescaped(key)] = text_from(value, safe_text(key, 64));
  }
  c.cases = count_from(required(root, "cases", ""), "cases");
  const YAML::Node configurations = required(root, "configurations", "");
  check_sequence(configurations, "configurations");
  for (std::size_t i = 0; i < configurations.size(); ++i) {
    c.configurations.push_back(text_from(configurations[i], "configurations[" + std::to_string(i) + "]"));
  }
  for (const auto& [cls, count] : map_entries(required(root, "coverage", ""), "coverage")) {
    c.coverage[unescaped(cls)] = count_from(count, "coverage." + safe_text(cls, 64));
  }
  if (const YAML::Node missed = root["coverage_missed"]) {
    check_sequence(missed, "coverage_missed");
    for (std::size_t i = 0; i < missed.size(); ++i) {
      c.coverage_missed.push_back(text_from(missed[i], "coverage_missed[" + std::to_string(i) + "]"));
    }
  }
  const YAML::Node results = required(root, "results", "");
  check_sequence(results, "results");
  for (std::size_t i = 0; i < results.size(); ++i) c.tallies.push_back(tally_from(results[i], "results[" + std::to_string(i) + "]"));
  const YAML::Node failures = required(root, "failures", "");
  check_sequence(failures, "failures");
  for (std::size_t i = 0; i < failures.size(); ++i) {
    c.failures.push_back(failure_from(failures[i], "failures[" + std::to_string(i) + "]"));
  }
  if (const YAML::Node groups = root["failure_groups"]) {  // absent in certificates before groups
    check_sequence(groups, "failure_groups");
    for (std::size_t i = 0; i < groups.size(); ++i) {
      c.failure_groups.push_back(group_from(groups[i], "failure_groups[" + std::to_string(i) + "]"));
    }
  }
  check_consistency(c);
  // verdict_reason is written from the counts and failures, as the verdict is: checked the same way.
  const std::string why = c.why_not_certified();
  const std::string recorded = root["verdict_reason"] ? text_from(root["verdict_reason"], "verdict_reason") : "";
  if (recorded != why) {
    throw Error("verdict_reason is '" + safe_text(recorded, 120) + "', but the counts and failures say '" + why + "'");
  }
  return c;
}

// ---- Merging. ----

// The header keys on which the shards of one run agree; `rerun` is compared without its
// --shard part, which also compares the knob flags.
constexpr const char* kRunKeys[] = {"backend", "backend_sha256", "corpus_sha256", "mxconform_version", "mxconform_commit",
                                    "level",   "seed",           "campaigns",     "all_knobs"};
// Run keys a certificate has only when they say something (absent: empty); the shards agree on them.
constexpr const char* kOptionalRunKeys[] = {"campaigns_skipped"};

struct ShardPosition {
  std::size_t index = 0;
  std::size_t count = 0;
};

std::string shard_text(const ShardPosition& shard) { return std::to_string(shard.index) + "/" + std::to_string(shard.count); }

// The `shard` header line, "I/N" with I < N.
ShardPosition shard_position(const Certificate& certificate) {
  const auto shard = certificate.header.find("shard");
  if (shard == certificate.header.end()) throw Error("no shard line");
  if (shard->second.rfind("merged", 0) == 0) {
    throw Error("already a merge (shard: " + safe_text(shard->second, 200) +
                "): merge the certificates of the shards themselves");
  }
  const std::size_t slash = shard->second.find('/');
  const auto index = decimal(std::string_view(shard->second).substr(0, slash));
  const auto count = slash == std::string::npos ? std::nullopt : decimal(std::string_view(shard->second).substr(slash + 1));
  if (!index || !count || *index >= *count || *count > kUncapped) {
    throw Error("shard '" + safe_text(shard->second, 64) + "' is not I/N with I < N");
  }
  return {static_cast<std::size_t>(*index), static_cast<std::size_t>(*count)};
}

std::string without_shard(std::string rerun) {
  const std::string flag = " --shard ";
  const std::size_t at = rerun.find(flag);
  if (at == std::string::npos) return rerun;
  const std::size_t end = rerun.find(' ', at + flag.size());
  rerun.erase(at, end == std::string::npos ? std::string::npos : end - at);
  return rerun;
}

// Two values a refusal sets side by side, each at most kShownBytes: whole when both fit, else each
// from the word before their first difference (the flag of a differing value, in a rerun line)
// with "..." in front of what is left out, so that the part that differs is what shows.
std::pair<std::string, std::string> differing_parts(const std::string& actual, const std::string& expected) {
  constexpr std::size_t kShownBytes = 200;
  if (actual.size() <= kShownBytes && expected.size() <= kShownBytes) return {safe_text(actual), safe_text(expected)};
  const std::size_t first = static_cast<std::size_t>(
      std::mismatch(actual.begin(), actual.begin() + static_cast<std::ptrdiff_t>(std::min(actual.size(), expected.size())),
                    expected.begin())
          .first -
      actual.begin());
  // The start of the word the difference is in, then of the word before it.
  std::size_t start = actual.rfind(' ', first == 0 ? 0 : first - 1);
  start = start == std::string::npos || first == 0 ? 0 : start;
  if (start > 0) {
    const std::size_t before = actual.rfind(' ', start - 1);
    start = before == std::string::npos ? 0 : before + 1;
  }
  if (first > start + kShownBytes / 2) start = first - kShownBytes / 2;  // a long word: the difference stays in view
  const auto part = [&](const std::string& text) {
    return (start == 0 ? "" : "...") + safe_text(std::string_view(text).substr(std::min(start, text.size())), kShownBytes);
  };
  return {part(actual), part(expected)};
}

// The header value of `key`, which a shard must have.
const std::string& run_value(const Certificate& certificate, const std::string& key) {
  const auto value = certificate.header.find(key);
  if (value == certificate.header.end()) throw Error("no " + key + " line");
  return value->second;
}

// The merged header: shard 0's, with the shard list, the rerun of the whole campaign, the
// earliest start, the latest finish and the workers of all shards; any other line the shards
// disagree on (the host, say) is marked as varying.
std::map<std::string, std::string> merged_header(const std::vector<const Certificate*>& in_order) {
  std::map<std::string, std::string> header = in_order.front()->header;
  std::set<std::string> keys;
  for (const Certificate* shard : in_order) {
    for (const auto& entry : shard->header) keys.insert(entry.first);
  }
  for (const std::string& key : keys) {
    std::vector<std::string> values;
    for (const Certificate* shard : in_order) {
      const auto value = shard->header.find(key);
      values.push_back(value == shard->header.end() ? "" : value->second);
    }
    const bool counts = std::all_of(values.begin(), values.end(), [](const std::string& v) { return decimal(v).has_value(); });
    if (key == "started") {
      header[key] = *std::min_element(values.begin(), values.end());  // ISO 8601 UTC: text order is time order
    } else if (key == "finished") {
      header[key] = *std::max_element(values.begin(), values.end());
    } else if (key == "workers_started" && counts) {
      std::size_t workers = 0;
      for (const std::string& v : values) workers = checked_sum(workers, *decimal(v), "merge: workers_started");
      header[key] = std::to_string(workers);
    } else if (!std::all_of(values.begin(), values.end(), [&](const std::string& v) { return v == values.front(); })) {
      header[key] = "varies by shard (shard 0: " + values.front() + ")";
    }
  }
  std::string shard_list;
  for (const Certificate* shard : in_order) shard_list += (shard_list.empty() ? "" : ",") + shard->header.at("shard");
  header["shard"] = "merged " + shard_list;
  header["rerun"] = without_shard(in_order.front()->header.at("rerun"));
  return header;
}

// ---- The verdict table. ----

std::string padded(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

std::string right_aligned(const std::string& text, std::size_t width) {
  return text.size() < width ? std::string(width - text.size(), ' ') + text : text;
}

std::string header_value(const Certificate& certificate, const char* key) {
  const auto value = certificate.header.find(key);
  return value == certificate.header.end() ? "?" : shown(value->second);
}

}  // namespace

// ---- Reports. ----

std::string to_yaml(const Certificate& certificate) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "mxconform_certificate" << YAML::Value << 1;
  out << YAML::Key << "verdict" << YAML::Value << verdict_text(certificate.certified());
  const std::string why = certificate.why_not_certified();
  if (!why.empty()) out << YAML::Key << "verdict_reason" << YAML::Value << yaml_text(why);
  for (const auto& [key, value] : certificate.header) {
    if (key != "verdict" && body_keys().count(key) == 0) out << YAML::Key << yaml_text(key) << YAML::Value << yaml_text(value);
  }
  out << YAML::Key << "cases" << YAML::Value << certificate.cases;
  out << YAML::Key << "configurations" << YAML::Value << YAML::BeginSeq;
  for (const auto& c : certificate.configurations) out << yaml_text(c);
  out << YAML::EndSeq;
  out << YAML::Key << "coverage" << YAML::Value << YAML::BeginMap;
  for (const auto& [cls, count] : certificate.coverage) out << YAML::Key << yaml_text(cls) << YAML::Value << count;
  out << YAML::EndMap;
  out << YAML::Key << "coverage_missed" << YAML::Value << YAML::BeginSeq;
  for (const auto& missed : certificate.coverage_missed) out << yaml_text(missed);
  out << YAML::EndSeq;
  out << YAML::Key << "results" << YAML::Value << YAML::BeginSeq;
  for (const Tally& t : certificate.tallies) {
    out << YAML::BeginMap << YAML::Key << "campaign" << YAML::Value << yaml_text(t.campaign) << YAML::Key << "configuration"
        << YAML::Value << yaml_text(t.configuration) << YAML::Key << "output" << YAML::Value << yaml_text(t.output);
    out << YAML::Key << "outcomes" << YAML::Value << YAML::BeginMap;
    for (const auto& [outcome, count] : t.outcomes) out << YAML::Key << yaml_text(outcome) << YAML::Value << count;
    out << YAML::EndMap;
    if (!t.unsupported.empty()) out << YAML::Key << "not_supported" << YAML::Value << yaml_text(t.unsupported);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "failures" << YAML::Value << YAML::BeginSeq;
  for (const Failure& f : certificate.failures) {
    out << YAML::BeginMap << YAML::Key << "campaign" << YAML::Value << yaml_text(f.campaign) << YAML::Key << "case"
        << YAML::Value << yaml_text(f.case_id) << YAML::Key << "configuration" << YAML::Value << yaml_text(f.configuration)
        << YAML::Key << "knobs" << YAML::Value << yaml_text(f.knobs) << YAML::Key << "outcome" << YAML::Value
        << name(f.outcome) << YAML::Key << "detail" << YAML::Value << yaml_text(f.detail);
    if (!f.signature.empty()) out << YAML::Key << "signature" << YAML::Value << yaml_text(f.signature);
    if (!f.repro_detail.empty()) out << YAML::Key << "repro_difference" << YAML::Value << yaml_text(f.repro_detail);
    if (!f.repro_path.empty()) out << YAML::Key << "repro_file" << YAML::Value << yaml_text(f.repro_path);
    if (f.repro_existed) out << YAML::Key << "repro_file_existed" << YAML::Value << "true";
    const std::string repro = yaml_lines(f.repro_yaml);
    out << YAML::Key << "repro" << YAML::Value;
    if (literal_round_trips(repro)) out << YAML::Literal;
    out << repro << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "failure_groups" << YAML::Value << YAML::BeginSeq;
  for (const FailureGroup& g : certificate.failure_groups) {
    out << YAML::BeginMap << YAML::Key << "signature" << YAML::Value << yaml_text(g.signature) << YAML::Key << "shown"
        << YAML::Value << g.shown << YAML::Key << "failed" << YAML::Value << YAML::BeginMap;
    for (const auto& [campaign, count] : g.failed) out << YAML::Key << yaml_text(campaign) << YAML::Value << count;
    out << YAML::EndMap << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  if (!out.good()) throw Error("certificate: YAML emitter: " + out.GetLastError());
  return sealed(std::string(out.c_str()) + "\n");
}

std::string to_junit(const Certificate& certificate) {
  const auto failed = [](const Tally& t) {
    for (const auto& [outcome, count] : t.outcomes) {
      if (count > 0 && counts_as_failure(outcome)) return true;
    }
    return false;
  };
  const auto skipped = [&failed](const Tally& t) {
    const auto pass = t.outcomes.find(name(Outcome::kPass));
    return !failed(t) && !t.unsupported.empty() && (pass == t.outcomes.end() || pass->second == 0);
  };
  std::map<std::string, std::vector<const Tally*>> suites;
  for (const Tally& t : certificate.tallies) suites[t.campaign].push_back(&t);

  pugi::xml_document document;
  pugi::xml_node declaration = document.append_child(pugi::node_declaration);
  declaration.append_attribute("version") = "1.0";
  declaration.append_attribute("encoding") = "UTF-8";
  pugi::xml_node root = document.append_child("testsuites");
  const auto backend = certificate.header.find("backend");
  root.append_attribute("name") =
      shown("mxconform certify " + (backend == certificate.header.end() ? std::string() : backend->second)).c_str();
  for (const auto& [campaign, tallies] : suites) {
    const std::string campaign_text = shown(campaign);
    pugi::xml_node suite = root.append_child("testsuite");
    suite.append_attribute("name") = campaign_text.c_str();
    std::size_t tests = 0, failures = 0, skips = 0;
    const auto add_failure = [&](const std::string& name, const std::string& message, const std::string& body) {
      pugi::xml_node testcase = suite.append_child("testcase");
      testcase.append_attribute("classname") = campaign_text.c_str();
      testcase.append_attribute("name") = shown(name).c_str();
      pugi::xml_node failure = testcase.append_child("failure");
      failure.append_attribute("message") = shown(message).c_str();
      failure.append_child(pugi::node_pcdata).set_value(body.c_str());
      ++tests;
      ++failures;
    };
    const auto listed = [&](const Failure& f) {
      return shown(f.case_id) + ": " + name(f.outcome) + ": " + shown(f.detail) + "\n" +
             shown_lines(f.repro_yaml, kMaxShownReproBytes) + "\n";
    };
    // One testcase per configuration that passed or is not supported; failures are grouped
    // below, except in a certificate without groups (written before them): there, one testcase
    // per failing configuration.
    for (const Tally* t : tallies) {
      if (failed(*t)) {
        if (!certificate.failure_groups.empty()) continue;
        std::string message, body;
        for (const auto& [outcome, count] : t->outcomes) {
          if (count > 0 && counts_as_failure(outcome)) message += outcome + " x" + std::to_string(count) + " ";
        }
        for (const Failure& f : certificate.failures) {
          if (f.campaign == campaign && f.knobs == t->configuration) body += listed(f);
        }
        add_failure(t->configuration, message, body);
        continue;
      }
      pugi::xml_node testcase = suite.append_child("testcase");
      testcase.append_attribute("classname") = campaign_text.c_str();
      testcase.append_attribute("name") = shown(t->configuration).c_str();
      ++tests;
      if (skipped(*t)) {
        testcase.append_child("skipped").append_attribute("message") = shown("not supported: " + t->unsupported).c_str();
        ++skips;
      }
    }
    // Failures: one testcase per failure group with cases in this campaign.
    for (const FailureGroup& g : certificate.failure_groups) {
      const auto in_campaign = g.failed.find(campaign);
      if (in_campaign == g.failed.end() || in_campaign->second == 0) continue;
      std::string body;
      std::size_t listed_here = 0;
      for (const Failure& f : certificate.failures) {
        if (f.campaign == campaign && f.signature == g.signature) {
          body += listed(f);
          ++listed_here;
        }
      }
      add_failure(g.signature, std::to_string(in_campaign->second) + " failed, " + std::to_string(listed_here) + " shown",
                  body);
    }
    suite.append_attribute("tests") = std::to_string(tests).c_str();
    suite.append_attribute("failures") = std::to_string(failures).c_str();
    suite.append_attribute("skipped") = std::to_string(skips).c_str();
  }
  std::ostringstream out;
  document.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
  return out.str();
}

Certificate read_certificate(const std::string& path) {
  const std::string who = safe_text(path);
  std::string text;
  try {
    text = read_input_file(path);
  } catch (const Error& error) {
    std::string reason = error.what();  // "<path>: <reason>"
    if (reason.rfind(path + ": ", 0) == 0) reason.erase(0, path.size() + 2);
    throw Error(who + ": cannot read the certificate: " + reason);
  }
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& error) {
    throw Error(who + ": not a certificate: " + error.what());
  }
  try {
    Certificate certificate = certificate_from(root);
    unsealed(text);  // after the rules above, so that a broken rule is named as itself
    certificate.source = path;
    return certificate;
  } catch (const Error& error) {
    throw Error(who + ": " + error.what());
  } catch (const YAML::Exception& error) {
    throw Error(who + ": malformed certificate: " + error.what());
  }
}

Certificate merge(const std::vector<Certificate>& shards) {
  if (shards.empty()) throw Error("merge: no certificates given");
  // Who each certificate is in messages: its file, or its place in the list.
  std::vector<std::string> who;
  std::vector<ShardPosition> position;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    who.push_back(shards[i].source.empty() ? "certificate " + std::to_string(i + 1) : safe_text(shards[i].source));
    try {
      position.push_back(shard_position(shards[i]));
      check_consistency(shards[i]);
      for (const char* key : kRunKeys) run_value(shards[i], key);
      run_value(shards[i], "rerun");
    } catch (const Error& error) {
      throw Error(who[i] + ": " + error.what());
    }
  }
  // One run: the same N and the same run keys as the first certificate given.
  const Certificate& first = shards.front();
  for (std::size_t i = 1; i < shards.size(); ++i) {
    const auto differs = [&](const std::string& what, const std::string& actual, const std::string& expected) {
      const auto [shown_actual, shown_expected] = differing_parts(actual, expected);
      return Error(who[i] + ": " + what + " '" + shown_actual + "', but " + who[0] + " has '" + shown_expected +
                   "': not shards of one run");
    };
    if (position[i].count != position[0].count) {
      throw Error(who[i] + ": shard " + shard_text(position[i]) + ", but " + who[0] + " is " + shard_text(position[0]) +
                  ": not shards of one run");
    }
    for (const char* key : kRunKeys) {
      if (run_value(shards[i], key) != run_value(first, key)) {
        throw differs(std::string(key) + " is", run_value(shards[i], key), run_value(first, key));
      }
    }
    for (const char* key : kOptionalRunKeys) {
      const auto value_of = [&](const Certificate& c) {
        const auto found = c.header.find(key);
        return found == c.header.end() ? std::string() : found->second;
      };
      if (value_of(shards[i]) != value_of(first)) throw differs(std::string(key) + " is", value_of(shards[i]), value_of(first));
    }
    const std::string rerun = without_shard(run_value(shards[i], "rerun"));
    if (rerun != without_shard(run_value(first, "rerun"))) {
      throw differs("rerun (without --shard) is", rerun, without_shard(run_value(first, "rerun")));
    }
    if (shards[i].configurations != first.configurations) {
      throw Error(who[i] + ": its configurations differ from " + who[0] + "'s: not shards of one run");
    }
  }
  // Each index once, every index 0..N-1.
  std::map<std::size_t, std::size_t> by_index;  // shard index -> place in `shards`
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const auto [placed, fresh] = by_index.emplace(position[i].index, i);
    if (!fresh) {
      throw Error(who[i] + ": shard " + shard_text(position[i]) + " again (also " + who[placed->second] + "): each shard once");
    }
  }
  std::size_t expected_index = 0;
  for (const auto& entry : by_index) {
    if (entry.first != expected_index) break;
    ++expected_index;
  }
  if (expected_index != position[0].count) {
    throw Error(who[0] + ": shard " + shard_text(position[0]) + ", but no certificate of shard " +
                shard_text({expected_index, position[0].count}) + " was given: a merge needs every shard of the run");
  }

  std::vector<const Certificate*> in_order;
  for (const auto& entry : by_index) in_order.push_back(&shards[entry.second]);
  Certificate merged;
  merged.header = merged_header(in_order);
  merged.configurations = first.configurations;
  std::map<std::pair<std::string, std::string>, std::size_t> tally_of;
  for (const Certificate* shard : in_order) {
    merged.cases = checked_sum(merged.cases, shard->cases, "merge: the cases of the shards");
    for (const Tally& t : shard->tallies) {
      const auto [place, fresh] = tally_of.emplace(std::make_pair(t.campaign, t.configuration), merged.tallies.size());
      if (fresh) merged.tallies.push_back({t.campaign, t.configuration, t.output, {}, t.unsupported});
      Tally& sum = merged.tallies[place->second];
      if (sum.unsupported.empty()) sum.unsupported = t.unsupported;
      for (const auto& [outcome, count] : t.outcomes) {
        sum.outcomes[outcome] = checked_sum(sum.outcomes[outcome], count, "merge: the " + outcome + " counts of " + t.campaign);
      }
    }
    merged.failures.insert(merged.failures.end(), shard->failures.begin(), shard->failures.end());
    for (const std::string& missed : shard->coverage_missed) {
      if (std::find(merged.coverage_missed.begin(), merged.coverage_missed.end(), missed) == merged.coverage_missed.end()) {
        merged.coverage_missed.push_back(missed);
      }
    }
    for (const auto& [cls, count] : shard->coverage) {
      merged.coverage[cls] = checked_sum(merged.coverage[cls], count, "merge: the coverage counts of " + cls);
    }
  }
  merged.failure_groups = merge_groups(in_order);
  merged.header["verdict"] = verdict_text(merged.certified());
  return merged;
}

namespace {

// "input=bfloat16 output=float8_e4m3fn emax_mode=emax ..." -> "bfloat16 -> float8_e4m3fn, emax, ...".
std::string compact_configuration(const std::string& configuration) {
  std::istringstream words(configuration);
  std::string word, input, output, rest;
  while (words >> word) {
    const std::size_t equals = word.find('=');
    const std::string key = word.substr(0, equals), value = equals == std::string::npos ? word : word.substr(equals + 1);
    if (key == "input") {
      input = value;
    } else if (key == "output") {
      output = value;
    } else {
      rest += ", " + (key == "lane_stride" || key == "high_parity" ? key + " " + value : value);
    }
  }
  if (input.empty() || output.empty()) return configuration;  // not the runner's key=value form
  return input + " -> " + output + rest;
}

}  // namespace

std::string verdict_table(const Certificate& certificate) {
  constexpr std::size_t kCampaignWidth = 11, kConfigurationWidth = 90, kCountWidth = 7;
  // Per configuration: whether any case ran, whether any failed, why it is not supported.
  struct Scope {
    bool ran = false, failed = false;
    std::string unsupported;
  };
  std::vector<std::string> order;
  std::map<std::string, Scope> scope;
  std::size_t run = 0, failed = 0;
  for (const Tally& t : certificate.tallies) {
    if (scope.count(t.configuration) == 0) order.push_back(t.configuration);
    Scope& s = scope[t.configuration];
    if (s.unsupported.empty()) s.unsupported = t.unsupported;
    for (const auto& [outcome, count] : t.outcomes) {
      if (count == 0 || outcome == name(Outcome::kUnsupported)) continue;
      s.ran = true;
      run += count;
      if (counts_as_failure(outcome)) {
        s.failed = true;
        failed += count;
      }
    }
  }
  std::ostringstream out;
  out << "backend " << header_value(certificate, "backend") << ": " << header_value(certificate, "backend_name") << " "
      << header_value(certificate, "backend_version") << " (" << header_value(certificate, "backend_description") << ")\n"
      << "        " << header_value(certificate, "backend_path") << " sha256 " << header_value(certificate, "backend_sha256")
      << "\nlevel " << header_value(certificate, "level") << ", seed " << header_value(certificate, "seed") << ", shard "
      << header_value(certificate, "shard") << "\n";
  if (certificate.header.count("campaigns_skipped") != 0) {
    out << "skipped: " << header_value(certificate, "campaigns_skipped") << "\n";
  }
  if (certificate.header.count("failure_database") != 0) {
    const auto added = certificate.header.find("failure_database_added");
    out << "failure database " << header_value(certificate, "failure_database") << ": "
        << header_value(certificate, "failure_database_cases") << " past failure(s) replayed first, "
        << (added == certificate.header.end() ? std::string("0") : shown(added->second)) << " added\n";
    if (certificate.header.count("failure_database_error") != 0) {
      out << "failure database not written: " << header_value(certificate, "failure_database_error") << "\n";
    }
  }
  out << padded("campaign", kCampaignWidth) << " " << padded("configuration", kConfigurationWidth) << " "
      << right_aligned("pass", kCountWidth) << " " << right_aligned("fail", kCountWidth) << " verdict\n";
  for (const Tally& t : certificate.tallies) {
    if (!scope[t.configuration].ran) continue;  // folded into the not-supported line below
    std::size_t pass = 0, fail = 0;
    std::string kinds;
    for (const auto& [outcome, count] : t.outcomes) {
      if (outcome == name(Outcome::kPass)) {
        pass += count;
      } else if (outcome != name(Outcome::kUnsupported)) {
        fail += count;
        kinds += (kinds.empty() ? "" : ",") + shown(outcome, 64);
      }
    }
    const std::string verdict =
        fail > 0 ? "FAIL (" + kinds + ")" : (pass == 0 && !t.unsupported.empty() ? "not supported" : "pass");
    out << padded(shown(t.campaign), kCampaignWidth) << " " << padded(shown(t.configuration), kConfigurationWidth)
        << " " << right_aligned(std::to_string(pass), kCountWidth) << " " << right_aligned(std::to_string(fail), kCountWidth)
        << " " << verdict << "\n";
  }
  std::vector<std::string> supported, unsupported;
  for (const std::string& c : order) (scope[c].ran ? supported : unsupported).push_back(c);
  if (!unsupported.empty()) {
    out << "not supported, as the backend declares: " << unsupported.size() << " configuration(s):";
    constexpr std::size_t kShownUnsupported = 4;
    for (std::size_t i = 0; i < std::min(unsupported.size(), kShownUnsupported); ++i) {
      out << (i == 0 ? " " : "; ") << shown(compact_configuration(unsupported[i]));
    }
    if (unsupported.size() > kShownUnsupported) out << "; and " << unsupported.size() - kShownUnsupported << " more";
    out << "\n";
  }
  if (certificate.header.count("load_error") != 0) {
    out << "load error: " << header_value(certificate, "load_error") << "\n";
  }
  for (const std::string& missed : certificate.coverage_missed) {
    out << "coverage: promised class never reached: " << shown(missed) << "\n";
  }
  if (!certificate.failure_groups.empty()) {
    out << "\nfailures by signature (" << certificate.failure_groups.size() << " group(s); at most " << kShownPerGroup
        << " shown per group):\n"
        << group_lines(certificate, [](std::string_view raw) { return shown(raw); });
  }
  for (const Failure& f : certificate.failures) {
    out << "\n" << name(f.outcome) << " in " << shown(f.campaign) << " case " << shown(f.case_id) << ": "
        << shown(f.detail) << "\n  " << shown(f.configuration) << "\n";
    if (!f.repro_detail.empty()) out << "  repro: " << shown(f.repro_detail) << "\n";
    if (!f.repro_path.empty() && f.repro_existed) {
      out << "  repro not written: " << shown(f.repro_path)
          << " was there already (the same case id, from an earlier run) and is left as it was\n";
    } else if (!f.repro_path.empty()) {
      out << "  repro written to " << shown(f.repro_path) << "\n";
    }
    const std::string repro = shown_lines(f.repro_yaml, kMaxShownReproBytes);
    out << repro << (repro.empty() || repro.back() == '\n' ? "" : "\n");
  }
  // The headline, last: what was certified, and what was not run.
  out << "\n" << (certificate.certified() ? "CERTIFIED" : "NOT CERTIFIED") << " for " << supported.size()
      << " configuration(s)";
  if (supported.size() <= 3) {
    for (std::size_t i = 0; i < supported.size(); ++i) out << (i == 0 ? ": " : "; ") << shown(compact_configuration(supported[i]));
  }
  if (!unsupported.empty()) out << "; " << unsupported.size() << " declared not supported";
  out << ". " << run << " cases run, " << failed << " failed";
  if (failed > certificate.failures.size()) out << ", " << certificate.failures.size() << " shown";
  out << "\n";
  const std::string why = certificate.why_not_certified();
  if (!why.empty()) out << "reason: " << shown(why) << "\n";
  return out.str();
}

}  // namespace mxconform::certify
