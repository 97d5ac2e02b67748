#pragma once
// Reads corpus files (schema v1, corpus/README.md) into cases, refusing anything it does not
// understand: every error is an mxconform::Error whose one-line message starts with
// "file:line:column: field:" (the field as a path, e.g. cases[3].input.elements[17]).
//
// Bounded on hostile input: file size, cases, shape, elements and repeat counts are capped below
// before anything is allocated for them; yaml-cpp caps nesting depth.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "corpus_case.h"

namespace mxconform::corpus {

inline constexpr int kSchemaVersion = 1;
inline constexpr std::size_t kMaxFileBytes = std::size_t{4} << 20;
inline constexpr std::size_t kMaxCasesPerFile = 4096;
inline constexpr std::size_t kMaxExtent = 4096;                      // P and F, each
inline constexpr std::size_t kMaxElementsPerCase = std::size_t{1} << 16;  // P*F
inline constexpr std::size_t kMaxElementsPerFile = std::size_t{1} << 20;  // summed over its cases
inline constexpr std::size_t kMaxLaneStride = kMaxElementsPerCase / 2;
inline constexpr std::size_t kMaxTextLength = 8192;                  // id, why, source, tags
inline constexpr std::size_t kMaxIdLength = 96;

// The cases of one corpus file's text; `file_name` is only used in messages. Ids must be unique
// within the file.
std::vector<CorpusCase> load_corpus_text(std::string_view text, const std::string& file_name);

// load_corpus_text of the file at `path` (at most kMaxFileBytes).
std::vector<CorpusCase> load_corpus_file(const std::string& path);

// The corpus files `paths` name: each file as given, each directory searched recursively for
// *.yaml and *.yml files (sorted by path). Throws Error for a path that does not exist, or a
// directory that holds no corpus file.
std::vector<std::string> find_corpus_files(const std::vector<std::string>& paths);

// Every case of every file find_corpus_files(paths) names, in file order. Ids must be unique
// across all of them: a repeat is an error at the repeat naming the first.
std::vector<CorpusCase> load_corpus(const std::vector<std::string>& paths);

}  // namespace mxconform::corpus
