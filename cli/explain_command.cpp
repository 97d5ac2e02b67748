#include "explain_command.h"

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>

#include "block_explanation.h"
#include "corpus_loader.h"
#include "exit_status.h"
#include "mxconform/error.h"
#include "mxconform/tensor_files.h"
#include "mxconform/registry.h"
#include "mxconform/safe_text.h"
#include "mxconform/open_subject.h"
#include "option_values.h"
#include "text_table.h"

namespace mxconform::cli {
namespace {

std::pair<std::size_t, std::size_t> parse_block(const std::string& text) {
  const std::size_t comma = text.find(',');
  const auto number = [&](const std::string& digits) {
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) {
      throw Error("--block '" + text + "': expected G,C (partition group and column block, from 0)");
    }
    return static_cast<std::size_t>(std::stoul(digits));
  };
  if (comma == std::string::npos) number("");
  return {number(text.substr(0, comma)), number(text.substr(comma + 1))};
}

// The subject to show beside the oracle (a built-in, or a plug-in or command in a worker unless
// --in-process), or nullptr when none was asked for.
std::shared_ptr<const Subject> explain_subject(const ExplainOptions& options, const QuantizeConfig& config) {
  const std::string& name = options.backend;
  if (name.empty()) return nullptr;
  std::shared_ptr<const Subject> subject = open_flagged_subject(name, options.isolation);
  const std::string reason = subject->unsupported_reason(config);
  if (!reason.empty()) throw Error("backend '" + name + "' does not support this configuration: " + reason);
  return subject;
}

// The raw bits and shape of a 2-D .npy input: <u2 bits of --in-dtype, or <f2 float16 values.
void read_npy_input(const ExplainOptions& options, reports::ExplainRequest& request) {
  InputTensor input = read_input_tensor(options.input_path, options.in_dtype);
  request.config.input = input.dtype;
  request.config.partitions = input.partitions;
  request.config.free = input.free;
  request.input = std::move(input.bits);
}

}  // namespace

CLI::App* add_explain_command(CLI::App& app, ExplainOptions& options) {
  CLI::App* command = app.add_subcommand(
      "explain", "Explain one block step by step: a corpus case (--corpus, --id) or an .npy input (--input, --block)");
  CLI::Option* corpus = command->add_option("--corpus", options.corpus_path, "Corpus file or directory holding the case");
  CLI::Option* id = command->add_option("--id", options.id, "Id of the corpus case");
  CLI::Option* input = command->add_option("--input", options.input_path, "Input .npy [P, F]: <u2 raw bits or <f2 float16");
  // The knobs of `mxconform quantize`, parsed straight into the configuration.
  const std::vector<CLI::Option*> knob_options = {
      command->add_option("--in-dtype", options.in_dtype, "bfloat16 or float16 (for <u2 input)"),
      command->add_option_function<std::string>(
          "--out-dtype",
          [&options](const std::string& text) {
            options.knobs.output = parse_output_dtype(text);
            options.out_dtype_given = true;
          },
          "Output dtype, as for quantize"),
      command->add_option_function<std::string>(
          "--emax-mode", [&options](const std::string& text) { options.knobs.emax_mode = parse_emax_mode(text); },
          "emax (default) or emax-1"),
      command->add_option_function<std::string>(
          "--fp8-nan", [&options](const std::string& text) { options.knobs.fp8_nan = parse_fp8_nan(text); },
          "canonical (default) or zero"),
      command->add_option_function<std::string>(
          "--lane-stride",
          [&options](const std::string& text) {
            options.knobs.fp4_lane_stride = static_cast<std::uint32_t>(
                parse_unsigned("--lane-stride", text, std::numeric_limits<std::uint32_t>::max()));
          },
          "FP4 lane stride (default 0)"),
      command->add_option_function<std::string>(
          "--high-parity",
          [&options](const std::string& text) { options.knobs.fp4_high_parity = parse_parity("--high-parity", text); },
          "FP4 high parity: 0 or 1 (default 1)"),
      command->add_option_function<std::string>(
          "--scale-layout", [&options](const std::string& text) { options.knobs.scale_layout = parse_scale_layout(text); },
          "physical (default) or logical")};
  command->add_option("--block", options.block, "Block G,C: rows 8G..8G+7, columns 4C..4C+3");
  command->add_option("--backend", options.backend, "Also show what this implementation wrote");
  add_isolation_flags(command, options.isolation, "reported as the subject's result");
  corpus->excludes(input);
  id->needs(corpus);
  for (CLI::Option* knob : knob_options) knob->excludes(corpus)->needs(input);
  return command;
}

int run_explain(const ExplainOptions& options) {
  reports::ExplainRequest request;
  request.colour = reports::colour_wanted(STDOUT_FILENO);
  std::vector<corpus::CorpusCase> cases;
  if (!options.corpus_path.empty()) {
    if (options.id.empty()) throw Error("explain --corpus needs --id ID");
    cases = corpus::load_corpus({options.corpus_path});
    for (const corpus::CorpusCase& c : cases) {
      if (c.id == options.id) request.corpus_case = &c;
    }
    if (request.corpus_case == nullptr) throw Error(options.corpus_path + ": no case with id '" + options.id + "'");
    request.config = request.corpus_case->config;
    request.input = request.corpus_case->input;
    if (request.config.profile != ProfileId::kNeuron) {
      throw Error("case '" + safe_text(options.id) + "' is in profile " + std::string(name(request.config.profile)) +
                  "; explain walks the neuron path only: replay it (`mxconform replay " + safe_text(options.corpus_path) +
                  " --backend oracle`)");
    }
  } else if (!options.input_path.empty()) {
    if (!options.out_dtype_given || options.block.empty()) throw Error("explain --input needs --out-dtype and --block G,C");
    request.config = options.knobs;
    read_npy_input(options, request);
    validate(request.config);
  } else {
    throw Error("explain needs --corpus PATH --id ID, or --input X.npy --out-dtype NAME --block G,C");
  }
  const std::shared_ptr<const Subject> subject = explain_subject(options, request.config);
  request.subject = subject.get();
  if (!options.block.empty()) std::tie(request.group, request.column_block) = parse_block(options.block);
  try {
    if (options.block.empty() && request.subject != nullptr) {
      std::tie(request.group, request.column_block) = reports::first_differing_block(*request.corpus_case, *request.subject);
    }
    std::cout << reports::explain_block(request);
    return 0;
  } catch (const SubjectFailure& failure) {
    // The subject crashed, hung, ... in its worker: that is its result for this case, after the
    // oracle's explanation of the block.
    request.subject = nullptr;
    std::cout << reports::explain_block(request);
    std::cout << "subject " << safe_text(subject->name()) << " failed on this case: " << safe_text(failure.what()) << "\n";
    return kExitNegativeVerdict;
  }
}

}  // namespace mxconform::cli
