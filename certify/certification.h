#pragma once
// A certification campaign: past failures (the failure database), the corpus, then the exhaustive
// element campaign, then generated property cases, for every dtype and knob combination asked for, against the oracle, with the
// backend in an isolated worker. Produces a certificate (YAML) and JUnit XML.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "campaign_cases.h"
#include "worker_backend.h"
#include "mxconform/quantize_config.h"

namespace mxconform::certify {

struct CertifyOptions {
  std::string backend;                  // built-in name or path to a shared library
  Level level = Level::kGate;
  std::uint64_t seed = 1;
  QuantizeConfig knobs;                 // knob values certified when all_knobs is false
  // The knobs the user named (flags given): the corpus campaign and the failure database run
  // only the cases in_request; the rerun line repeats only these flags. Ignored with all_knobs.
  NamedKnobs named_knobs;
  bool all_knobs = false;               // every knob combination the backend declares
  std::vector<std::string> campaigns = {"corpus", "exhaustive", "properties"};
  std::vector<std::string> corpus_paths;  // files or directories
  std::string emit_repro_dir;           // write each failure's repro there (never overwriting)
  // The failure database (failure_database.h): replayed first, as the campaign "failures", and
  // given each new failure's repro. Off by default here (tests never touch the user's cache);
  // `mxconform certify` turns it on. An empty directory means default_failure_database().
  bool failure_database = false;
  std::string failure_database_dir;
  std::size_t shard_index = 0;          // run the cases whose index % shard_count == shard_index
  std::size_t shard_count = 1;
  double timeout_seconds = 20;          // per call; finite and > 0
  std::uint64_t memory_limit_bytes = std::uint64_t{8} << 30;  // worker address space; 0: no limit
  std::function<void(const std::string& stage, std::size_t done, std::size_t total)> progress;
};

struct Failure {
  std::string campaign;
  // Raw bytes, the backend's among them: the reports escape them (certificate.cpp).
  std::string case_id;
  std::string configuration;  // describe(config): knobs and shape
  std::string knobs;          // the configuration's tally key
  Outcome outcome = Outcome::kPass;
  std::string detail;         // the original case's; for nondeterministic: both runs' outcomes and details
  std::string repro_yaml;     // the shrunk case as a corpus file
  std::string repro_path;     // where --emit-repro (else the failure database) put it
  std::string signature;      // what kind of failure (shrink.h): outcome, byte, block and element class, knobs
  std::string repro_detail;   // the repro's own run: its first scale and data differences, or its detail
  bool repro_existed = false; // repro_path was there already (an earlier run's), left as it was
};

// The failures of one signature (Failure::signature): what differs, in which block class, for
// which configuration. Every failing case is counted in its group; a few per group are listed
// in `failures`, shrunk (the cap is per group, so that one bug cannot hide another).
struct FailureGroup {
  std::string signature;
  std::map<std::string, std::size_t> failed;  // campaign -> failing cases with this signature
  std::size_t shown = 0;                      // of them listed in Certificate::failures
};

// Outcome counts of one campaign on one configuration.
struct Tally {
  std::string campaign;
  std::string configuration;
  std::string output;          // output dtype name
  std::map<std::string, std::size_t> outcomes;  // outcome name -> cases
  std::string unsupported;     // why, when the backend does not declare the configuration
};

struct Certificate {
  std::map<std::string, std::string> header;  // mxconform, commit, backend, host, level, seed, ...
  std::vector<std::string> configurations;
  std::vector<Tally> tallies;
  std::vector<Failure> failures;
  std::vector<FailureGroup> failure_groups;  // in the order their first failure was met
  std::map<std::string, std::size_t> coverage;  // property coverage class -> cases
  // "configuration: class" for each class a declared configuration promises (properties
  // campaign) that no case reached; any entry fails the run.
  std::vector<std::string> coverage_missed;
  std::size_t cases = 0;
  std::string source;  // the file read_certificate read it from; empty when built in memory
  // Certified iff the backend loaded, no failure outcome is counted or listed, no promised
  // coverage class was missed and at least one case of the requested configurations passed.
  bool certified() const;
  // Why not, or "" when certified: "the backend could not be loaded", "wrong-result counted", ...;
  // when nothing passed because the backend declares none of the requested configurations,
  // "none of the requested configurations is supported by the backend: " and its reasons.
  std::string why_not_certified() const;
};

Certificate run_certification(const CertifyOptions& options);

// mxconform's own corpus: share/mxconform/corpus beside the running executable's install prefix
// (PREFIX/bin/mxconform -> PREFIX/share/mxconform/corpus), else the source tree's corpus/cases
// for a binary run from its build tree. Throws Error naming both places when neither exists.
std::string default_corpus_directory();

// The YAML certificate. Text from outside (header values, case ids, details, repros) is cut and
// escaped with safe_text / safe_multiline_text here, once; the Certificate holds it raw.
std::string to_yaml(const Certificate& certificate);
// JUnit XML, well-formed whatever the text in the certificate: one <testsuite> per campaign, one
// <testcase> per configuration that passed or is <skipped> (not supported), and one <testcase>
// with a <failure> per failure group the campaign has cases in.
std::string to_junit(const Certificate& certificate);
// Reads a certificate written by to_yaml (for `mxconform merge`), undoing its escaping, and sets
// `source`. Throws Error naming the file and the rule when it is malformed or inconsistent: every
// count a plain unsigned decimal within 64 bits, known outcome names, `cases` equal to the sum of
// every outcome count in `results`, and the verdict the counts and failures give.
Certificate read_certificate(const std::string& path);
// The shards 0..N-1 of one run (same N, backend, digests, version, commit, level, seed,
// campaigns and knobs; each index once; none itself a merge; each consistent as above) into one
// certificate: counts summed without overflow, failures and coverage joined, verdict computed.
// Throws Error naming the certificate (its `source`, or its place in the list) and the rule.
Certificate merge(const std::vector<Certificate>& shards);
// The verdict table: the backend, one line per configuration and campaign, then every failure
// with its repro; all text from outside shown through safe_text.
std::string verdict_table(const Certificate& certificate);

}  // namespace mxconform::certify
