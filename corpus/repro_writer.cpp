#include "repro_writer.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "byte_syntax.h"
#include "mxconform/safe_text.h"
#include "corpus_loader.h"
#include "element_syntax.h"
#include "mxconform/atomic_file.h"
#include "mxconform/error.h"
#include "oracle.h"
#include "value_text.h"

#ifndef MXCONFORM_DEFAULT_REPRO_DIR
#define MXCONFORM_DEFAULT_REPRO_DIR "corpus-repros"
#endif

namespace mxconform::corpus {
namespace {

constexpr std::uint64_t kFnvOffsetBasis = 14695981039346656037ull;
constexpr std::uint64_t kFnvPrime = 1099511628211ull;
constexpr int kIdHashDigits = 12;
constexpr std::size_t kElementsPerLine = 8;
constexpr std::size_t kMaxPropertyNameInId = 48;

std::uint64_t fnv1a(std::uint64_t hash, const void* bytes, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(bytes);
  for (std::size_t i = 0; i < size; ++i) hash = (hash ^ p[i]) * kFnvPrime;
  return hash;
}

// The property name as id characters: letters, digits, '-' and '_' kept, anything else '-'.
std::string id_slug(const std::string& property) {
  std::string slug;
  for (char c : property.substr(0, kMaxPropertyNameInId)) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    slug += keep ? c : '-';
  }
  return slug.empty() ? "property" : slug;
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += "\\x" + format_hex(static_cast<unsigned char>(c), 2).substr(2);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// A YAML scalar for expected bytes: quoted when on one line, else a literal block at `indent`.
std::string bytes_scalar(const std::vector<ExpectedByte>& bytes, const std::string& indent) {
  const std::string text = format_expected_bytes(bytes);
  if (text.find('\n') == std::string::npos) return quoted(text);
  std::string out = "|-";
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) out += "\n" + indent + line;
  return out;
}

void write_case(std::ostringstream& out, const CorpusCase& c) {
  const QuantizeConfig defaults;
  const QuantizeConfig& config = c.config;
  out << "  - id: " << c.id << "\n"
      << "    why: " << quoted(c.why) << "\n"
      << "    source: " << quoted(c.source) << "\n";
  if (!c.tags.empty()) {
    out << "    tags: [";
    for (std::size_t i = 0; i < c.tags.size(); ++i) out << (i ? ", " : "") << c.tags[i];
    out << "]\n";
  }
  out << "    input:\n"
      << "      dtype: " << name(config.input) << "\n"
      << "      shape: [" << config.partitions << ", " << config.free << "]\n"
      << "      elements: [";
  for (std::size_t i = 0; i < c.input.size(); ++i) {
    if (i % kElementsPerLine == 0) out << "\n        ";
    out << format_bit_pattern(c.input[i]) << (i + 1 < c.input.size() ? ", " : "]\n");
  }
  out << "    config:\n"
      << "      out-dtype: " << name(config.output) << "\n";
  if (config.profile != ProfileId::kNeuron) {
    // The loader applies the profile's defaults first; the knobs below are relative to neuron's.
    out << "      profile: " << name(config.profile) << "\n"
        << "      block-shape: " << name(config.block_shape) << "\n";
  }
  if (config.emax_mode != defaults.emax_mode) out << "      emax-mode: " << name(config.emax_mode) << "\n";
  if (config.fp8_nan != defaults.fp8_nan) out << "      fp8-nan: " << name(config.fp8_nan) << "\n";
  if (config.fp4_lane_stride != defaults.fp4_lane_stride) out << "      lane-stride: " << config.fp4_lane_stride << "\n";
  if (config.fp4_high_parity != defaults.fp4_high_parity) out << "      high-parity: " << config.fp4_high_parity << "\n";
  if (config.scale_layout != defaults.scale_layout) out << "      scale-layout: " << name(config.scale_layout) << "\n";
  out << "    expect:\n"
      << "      scale: " << bytes_scalar(c.scale, "        ") << "\n"
      << "      data: " << bytes_scalar(c.data, "        ") << "\n";
}

std::vector<ExpectedByte> expected_bytes(const std::vector<std::uint8_t>& bytes) {
  return std::vector<ExpectedByte>(bytes.begin(), bytes.end());
}

}  // namespace

CorpusCase make_repro_case(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                           const std::string& property, std::uint64_t seed) {
  validate(config);
  if (input.size() != config.partitions * config.free) {
    throw Error("repro for " + property + ": " + std::to_string(input.size()) + " input elements for " + describe(config));
  }
  // A repro is always loadable: a case the loader would refuse is not written at all.
  if (config.partitions > kMaxExtent || config.free > kMaxExtent || input.size() > kMaxElementsPerCase) {
    throw Error("the failing case is [" + std::to_string(config.partitions) + ", " + std::to_string(config.free) +
                "], above the corpus loader's limits (" + std::to_string(kMaxExtent) + " per dimension, " +
                std::to_string(kMaxElementsPerCase) + " elements) and could not be shrunk below them; no repro written");
  }
  const Geometry g = geometry(config);
  std::vector<std::uint8_t> data(g.data_bytes);
  std::vector<std::uint8_t> scale(g.scale_bytes);
  oracle::quantize(config, input.data(), data.data(), scale.data());

  CorpusCase c;
  c.config = config;
  c.input = input;
  c.data = expected_bytes(data);
  c.scale = expected_bytes(scale);
  // Physical rows that no slot names are never written.
  if (config.scale_layout == ScaleLayout::kPhysical) {
    std::vector<bool> named(g.scale_rows, false);
    for (std::size_t i = 0; i < g.block_rows; ++i) named[oracle::physical_scale_row(i)] = true;
    for (std::size_t i = 0; i < c.scale.size(); ++i) {
      if (!named[i / g.block_cols]) c.scale[i] = std::nullopt;
    }
  }
  const std::string description = describe(config);
  std::uint64_t hash = fnv1a(kFnvOffsetBasis, description.data(), description.size());
  hash = fnv1a(hash, input.data(), input.size() * sizeof input[0]);
  char digest[kIdHashDigits + 1];
  std::snprintf(digest, sizeof digest, "%0*llx", kIdHashDigits,
                static_cast<unsigned long long>(hash >> (64 - 4 * kIdHashDigits)));
  c.id = "repro." + id_slug(property) + "." + digest;
  c.why = "Property '" + property + "' failed with seed " + std::to_string(seed) +
          "; this is its shrunk counterexample. Expected bytes are the oracle's: review them, say in one "
          "sentence what the case pins, then commit it under corpus/cases/.";
  c.source = "property suite: " + property + ", seed " + std::to_string(seed);
  c.tags = {"repro"};
  return c;
}

std::string format_corpus_file(const std::vector<CorpusCase>& cases, const std::string& header_comment) {
  std::ostringstream out;
  std::istringstream comment(header_comment);
  for (std::string line; std::getline(comment, line);) out << "# " << line << "\n";
  out << "schema: " << kSchemaVersion << "\ncases:\n";
  for (const CorpusCase& c : cases) write_case(out, c);
  return out.str();
}

std::string repro_directory(const std::string& directory) {
  if (!directory.empty()) return directory;
  const char* from_environment = std::getenv("MXCONFORM_REPRO_DIR");
  if (from_environment != nullptr && *from_environment != '\0') return from_environment;
  return MXCONFORM_DEFAULT_REPRO_DIR;
}

ReproFile write_repro_file(const CorpusCase& c, const std::string& directory, const std::string& replay_backend,
                           const std::string& note) {
  namespace fs = std::filesystem;
  const fs::path dir = repro_directory(directory);
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) throw Error(dir.string() + ": cannot create the repro directory: " + error.message());
  const fs::path path = dir / (c.id + ".yaml");
  // The id names the case's content: a regular file of that name already holds this repro.
  const fs::file_status existing = fs::symlink_status(path, error);
  if (fs::is_regular_file(existing)) return {path.string(), false};
  if (fs::exists(existing)) throw Error(path.string() + ": exists and is not a regular file; not writing the repro there");

  // Commands to paste: each word shell-quoted, then escaped (the header is text a terminal shows).
  const std::string backend_flag = replay_backend.empty() ? "" : " --backend " + safe_text(shell_word(replay_backend));
  const std::string file = safe_text(shell_word(path.string()));
  // explain walks the neuron path only.
  const std::string explain = c.config.profile != ProfileId::kNeuron
                                  ? ""
                                  : "\nExplain it with: mxconform explain --corpus " + file + " --id " +
                                        safe_text(shell_word(c.id)) + backend_flag;
  const std::string text = format_corpus_file(
      {c}, "A shrunk counterexample written by mxconform.\nReplay it with: mxconform replay" + backend_flag + " " + file +
               explain + (note.empty() ? "" : "\n" + note));
  // Whole or not at all, and never over an existing file.
  write_file_atomically(path.string(), text, false);
  return {path.string(), true};
}

std::string write_repro_case(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                             const std::string& property, std::uint64_t seed, const std::string& directory) {
  return write_repro_file(make_repro_case(config, input, property, seed), directory).path;
}

}  // namespace mxconform::corpus
