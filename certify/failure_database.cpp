#include "failure_database.h"

#include <climits>
#include <cstdlib>
#include <filesystem>

#include "corpus_loader.h"
#include "mxconform/error.h"
#include "mxconform/safe_text.h"
#include "sha256.h"

namespace mxconform::certify {
namespace {

constexpr std::size_t kPathHashDigits = 12;
constexpr std::size_t kMaxNameBytes = 64;

std::string file_name_safe(const std::string& text) {
  std::string out;
  for (char c : text.substr(0, kMaxNameBytes)) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                       c == '_' || c == '-';
    out += plain ? c : '_';
  }
  if (out.empty() || out.front() == '.') out.insert(out.begin(), '_');  // never "", "." or ".."
  return out;
}

}  // namespace

std::string failure_database_id(const std::string& backend_spec, const std::string& backend_name) {
  if (backend_spec.find('/') == std::string::npos) return file_name_safe(backend_spec);
  char resolved[PATH_MAX];
  const std::string path = ::realpath(backend_spec.c_str(), resolved) != nullptr ? resolved : backend_spec;
  Sha256 hash;
  hash.update(path.data(), path.size());
  return file_name_safe(backend_name) + "-" + hash.hex_digest().substr(0, kPathHashDigits);
}

std::string default_failure_database(const std::string& backend_spec, const std::string& backend_name) {
  namespace fs = std::filesystem;
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  fs::path cache;
  if (xdg != nullptr && xdg[0] == '/') {
    cache = xdg;
  } else if (home != nullptr && home[0] == '/') {
    cache = fs::path(home) / ".cache";
  } else {
    throw Error("no failure database directory: neither XDG_CACHE_HOME nor HOME is an absolute path; pass "
                "--failure-database DIR or --no-failure-database");
  }
  return (cache / "mxconform" / "failures" / failure_database_id(backend_spec, backend_name)).string();
}

std::vector<corpus::CorpusCase> load_failure_database(const std::string& directory) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(directory, error)) {
    if (fs::exists(directory, error)) throw Error(safe_text(directory) + ": the failure database is not a directory");
    return {};
  }
  std::vector<std::string> files;
  try {
    files = corpus::find_corpus_files({directory});
  } catch (const Error&) {
    return {};  // a directory without corpus files yet
  }
  std::vector<corpus::CorpusCase> out;
  for (const std::string& file : files) {
    try {
      for (corpus::CorpusCase& c : corpus::load_corpus_file(file)) out.push_back(std::move(c));
    } catch (const Error& e) {
      throw Error(std::string("failure database: ") + e.what() + " (remove the file, or pass --no-failure-database)");
    }
  }
  return out;
}

}  // namespace mxconform::certify
