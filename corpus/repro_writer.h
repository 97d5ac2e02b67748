#pragma once
// Turns a failing quantize call into a ready-to-commit corpus file whose expected bytes are the
// oracle's, so that `mxconform replay` keeps the failure found.
#include <cstdint>
#include <string>
#include <vector>

#include "corpus_case.h"

namespace mxconform::corpus {

// The case for `input` under `config` (validated here; Error when invalid): expected bytes from
// oracle::quantize, id "repro.<property>.<12 hex digits of a hash of config and input>", a `why`
// and `source` naming the property and seed, tag "repro".
CorpusCase make_repro_case(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                           const std::string& property, std::uint64_t seed);

// A schema v1 corpus file holding `cases`: elements as bit patterns, knobs only where they
// differ from the defaults. load_corpus_text reads it back to equal cases.
std::string format_corpus_file(const std::vector<CorpusCase>& cases, const std::string& header_comment);

// Where repros go: `directory` when not empty, else $MXCONFORM_REPRO_DIR when set and not empty,
// else corpus-repros/ in the build tree.
std::string repro_directory(const std::string& directory = "");

// Where write_repro_file put a repro, and whether it wrote the file.
struct ReproFile {
  std::string path;
  bool written = false;  // false: a regular file of that name was there already, left as it was
};

// Writes `c` (a repro case, its id naming its content) as <id>.yaml into repro_directory(directory),
// creating the directory, and returns the file's path; never over anything (see below). The
// file's comment says how to replay it, with `--backend <replay_backend>` when one is given (a
// plug-in's repro replays on the plug-in), followed by `note` (lines of printable text) if any.
ReproFile write_repro_file(const CorpusCase& c, const std::string& directory = "", const std::string& replay_backend = "",
                           const std::string& note = "");

// Writes make_repro_case(...) as <id>.yaml into repro_directory(directory), creating the
// directory, and returns the file's path. Never overwrites: when the file exists (same id, so
// the same case) it is left as it is and its path returned. Writes whole or not at all.
std::string write_repro_case(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                             const std::string& property, std::uint64_t seed, const std::string& directory = "");

}  // namespace mxconform::corpus
