#pragma once
// One corpus case as the loader hands it on: a quantize configuration, its input bits and the bytes
// the contract says it produces, with the reason it exists and where it was written.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mxconform/quantize_config.h"

namespace mxconform::corpus {

// A place in a corpus file; line and column count from 1.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};
// "file:line:column".
std::string to_string(const SourceLocation& location);

// An expected output byte; nullopt marks a byte the implementation must never write (a physical
// scale row that no slot names, docs/contract.md step 7).
using ExpectedByte = std::optional<std::uint8_t>;

struct CorpusCase {
  std::string id;                    // unique across the corpus: [A-Za-z0-9._-], at most 96 chars
  std::string why;                   // the reason, with the hand derivation for small cases
  std::string source;                // the spec step, QUIRK or GOTCHA it pins
  std::vector<std::string> tags;
  QuantizeConfig config;             // validated
  std::vector<std::uint16_t> input;  // P*F raw input bits, row-major
  std::vector<ExpectedByte> data;    // geometry(config).data_bytes bytes, none nullopt
  std::vector<ExpectedByte> scale;   // geometry(config).scale_bytes bytes
  SourceLocation location;           // where the case's id value starts
};

}  // namespace mxconform::corpus
