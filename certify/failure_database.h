#pragma once
// The failure database: a directory of repro corpus files per backend. Certify replays it before
// any campaign (as its own campaign, "failures") and adds each new failure's repro to it, never
// overwriting a file, so that a bug found once is checked first on every later run.
#include <string>
#include <vector>

#include "corpus_case.h"

namespace mxconform::certify {

// The backend's directory name: a built-in's name; for a shared library, the name it describes
// itself with and 12 hex digits of the SHA-256 of its resolved path (the same library rebuilt in
// place keeps its database). Only [A-Za-z0-9._-]; anything else becomes '_'.
std::string failure_database_id(const std::string& backend_spec, const std::string& backend_name);

// $XDG_CACHE_HOME/mxconform/failures/<id> when XDG_CACHE_HOME is set to an absolute path, else
// $HOME/.cache/mxconform/failures/<id>. Throws Error when neither is set.
std::string default_failure_database(const std::string& backend_spec, const std::string& backend_name);

// Every case of every corpus file in `directory`, in file order; none when the directory does not
// exist or holds no corpus file. Throws Error naming the file that does not load (and how to go
// on without it).
std::vector<corpus::CorpusCase> load_failure_database(const std::string& directory);

}  // namespace mxconform::certify
