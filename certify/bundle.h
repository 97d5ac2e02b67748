#pragma once
// Offline bundles (docs/bundle-manifest.md): every case of the certify campaigns written as .npy
// inputs and a manifest, for a runner on a machine mxconform cannot drive (a device, a remote
// simulator, another CI job); then the runner's outputs graded as certify grades a call.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "call_grade.h"
#include "campaign_cases.h"
#include "certification.h"
#include "mxconform/quantize_config.h"

namespace mxconform::certify {

// The manifest format this mxconform writes and reads.
inline constexpr int kBundleFormatVersion = 1;

struct ExportOptions {
  std::string directory;                 // created when missing (its parent must exist)
  Level level = Level::kGate;
  std::uint64_t seed = 1;
  QuantizeConfig knobs;                  // as for certify
  NamedKnobs named_knobs;                // as for certify: the corpus cases exported are in_request
  bool all_knobs = false;
  // A subset of corpus, exhaustive, properties, in any order; or fingerprint alone (the deciding
  // cases of fingerprint.h under `knobs`).
  std::vector<std::string> campaigns = {"corpus", "exhaustive", "properties"};
  std::vector<std::string> corpus_paths;  // files or directories
  bool force = false;                    // write into a non-empty directory, over its bundle files
};

struct ExportSummary {
  std::size_t cases = 0;
  std::vector<std::string> skipped;  // "campaign: why" for each campaign with no case for the profile
  std::uint64_t input_bytes = 0;   // the .npy inputs, headers included
  std::string manifest_path;
};

// Writes DIR/inputs/<id>.npy for every case, creates DIR/outputs/<export_id>/ (empty) and writes
// DIR/manifest.yaml last, so a bundle without a manifest is an interrupted export. Throws Error
// before writing anything when DIR is not empty and `force` is false, or is not a directory, or
// when no campaign asked for has a case for the profile (skipped_campaigns).
ExportSummary export_bundle(const ExportOptions& options);

struct GradeOptions {
  std::string directory;
  std::vector<std::string> corpus_paths;  // must digest to the manifest's corpus_sha256
  std::string emit_repro_dir;            // write each failure's repro there (never overwriting)
};

// Reads DIR/manifest.yaml, refuses it (Error naming the field) when its format version,
// mxconform version, corpus digest, or any case differs from what this mxconform regenerates
// from its level, seed and knobs, or when an input file differs from its case; then grades each
// case's outputs: missing (missing-output), not a regular file inside DIR, not a |u1 .npy of the
// shape `mxconform quantize` writes, or too large (malformed-output), then bytes as certify does,
// with every scale row no slot names required to be 0 (write-unnamed-scale-row otherwise).
// Reads nothing outside DIR but the corpus: files are opened without following symbolic links.
// `each`, when given, sees every case as graded, with the bytes the runner wrote (empty when its
// file is missing or malformed).
using GradedCaseVisitor = std::function<void(const CampaignCase&, const CallGrade&, const std::vector<std::uint8_t>& data,
                                             const std::vector<std::uint8_t>& scale)>;
Certificate grade_bundle(const GradeOptions& options, const GradedCaseVisitor& each = {});

// The bundle id of the case at `index` in campaign order: "c000000", "c000001", ...
std::string bundle_case_id(std::size_t index);

}  // namespace mxconform::certify
