#pragma once
// `mxconform explain`: one block through the QuantizeMx path, step by step, for a corpus case
// (--corpus PATH --id ID) or for an .npy input (--input X.npy --out-dtype NAME --block G,C and the
// quantize knobs).
#include <string>

#include <CLI/CLI.hpp>

#include "isolation_flags.h"
#include "mxconform/quantize_config.h"

namespace mxconform::cli {

struct ExplainOptions {
  std::string corpus_path;  // corpus mode: a file or directory, and the case's id
  std::string id;
  std::string input_path;   // .npy mode: the tensor, its dtype, and the knobs parsed into `knobs`
  std::string in_dtype;
  bool out_dtype_given = false;
  QuantizeConfig knobs;     // output dtype and knobs; shape and input dtype come from the file
  std::string block;        // "G,C"; corpus mode defaults to the first block the backend gets wrong, else 0,0
  std::string backend;      // optional subject shown beside the oracle
  IsolationFlags isolation;  // --in-process, --timeout
};

CLI::App* add_explain_command(CLI::App& app, ExplainOptions& options);

// Prints the explanation to stdout; colour only on a terminal without NO_COLOR. Returns 0, or
// kExitNegativeVerdict when the subject (in a worker) crashed, hung or failed otherwise on the case:
// then the oracle's explanation and a line naming the outcome.
// Throws Error for a missing case, a bad file, a block outside the tensor or an unusable backend.
int run_explain(const ExplainOptions& options);

}  // namespace mxconform::cli
