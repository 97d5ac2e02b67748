#pragma once
// `mxconform explain`: one 8x4 block through the QuantizeMx path, step by step (docs/contract.md
// steps 1-7), computed with the oracle's own functions so that the text is the reference's
// reasoning, not a second implementation's.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "corpus_case.h"
#include "mxconform/subject.h"

namespace mxconform::reports {

using corpus::CorpusCase;

struct ExplainRequest {
  QuantizeConfig config;                    // validated by explain_block
  std::vector<std::uint16_t> input;         // P*F raw input bits, row-major
  std::size_t group = 0;                    // the block (g, c): rows 8g..8g+7, columns 4c..4c+3
  std::size_t column_block = 0;
  const CorpusCase* corpus_case = nullptr;  // when set: its id, why, source and expected bytes
  const Subject* subject = nullptr;  // when set: its codes and E8M0 beside the oracle's
  bool colour = false;                      // ANSI colour
};

// The explanation as aligned text. Throws Error when the block is outside the tensor or the
// input does not match the configuration.
std::string explain_block(const ExplainRequest& request);

// The first block (g, c) where `subject` and the case disagree (in a code or the E8M0), or
// (0, 0) when they agree everywhere.
std::pair<std::size_t, std::size_t> first_differing_block(const CorpusCase& c, const Subject& subject);

}  // namespace mxconform::reports
