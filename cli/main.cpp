// mxconform: the command-line front end. Thin: parsing, files and reports; the numeric work is in
// the registered implementations.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "mxconform/atomic_file.h"
#include "mxconform/error.h"
#include "mxconform/npy.h"
#include "mxconform/tensor_files.h"
#include "mxconform/parallel_quantize.h"
#include "mxconform/registry.h"
#include "mxconform/open_subject.h"
#include "mxconform/subject_process.h"
#include "bundle_command.h"
#include "certify_command.h"
#include "serve_command.h"
#include "fingerprint_command.h"
#include "command_line.h"
#include "exit_status.h"
#include "isolation_flags.h"
#include "explain_command.h"
#include "option_values.h"
#include "quantize_summary.h"
#include "replay_command.h"
#include "verify_command.h"
#ifdef MXCONFORM_WITH_BENCH
#include "bench.h"
#endif

namespace mxconform::cli {
namespace {

// The knobs shared by quantize and dequantize, as the user typed them.
struct KnobOptions {
  std::string out_dtype;
  std::string emax_mode = "emax";
  std::string fp8_nan = "canonical";
  std::string lane_stride = "0";
  std::string high_parity = "1";
  std::string scale_layout = "physical";
  std::string profile = "neuron";
  std::string block_shape;
  std::string backend;
  bool force = false;
  // A plug-in or command runs in a worker: its crash or hang is an error naming it, not ours.
  // One call quantizes the whole tensor, so the per-call timeout is longer than replay's.
  IsolationFlags isolation{false, 600};
  // The knobs the user gave, which a profile's defaults do not replace.
  std::vector<const CLI::Option*> given;
};

void add_knob_options(CLI::App& command, KnobOptions& knobs) {
  command.add_option("--out-dtype", knobs.out_dtype,
                     "Output dtype: float4_e2m1fn_x4 (2), float8_e4m3fn (5), float8_e5m2 (7), "
                     "float8_e4m3fn_x4 (8), float8_e5m2_x4 (9); aliases fp4, e4m3, e5m2, e4m3_x4, e5m2_x4")
      ->required();
  knobs.given = {
      command.add_option("--emax-mode", knobs.emax_mode, "emax (default) or emax-1"),
      command.add_option("--fp8-nan", knobs.fp8_nan, "FP8 NaN policy: canonical (sign|0x7F, default) or zero"),
      command.add_option("--lane-stride", knobs.lane_stride, "FP4 lane-remap stride; 0 (default) is no remap"),
      command.add_option("--high-parity", knobs.high_parity, "FP4 nibble parity that goes high: 1 (default) or 0"),
      command.add_option("--scale-layout", knobs.scale_layout, "physical (slot-interleaved, default) or logical"),
      command.add_option("--block-shape", knobs.block_shape, "8x4, 1x32 or 32x1 (default: the profile's)")};
  command.add_option("--profile", knobs.profile,
                     "The contract: neuron (default), nki-golden, nki-golden-kernel, ocp-floor, torchao-rceil, "
                     "torchao-ceil, torchao-even, transformer-engine-mxfp8, microxcaling (docs/contract.md, Profiles)");
  command.add_option("--backend", knobs.backend, "The subject: a built-in name (`mxconform backends`), a plug-in PATH.so or 'cmd:COMMAND'");
  command.add_flag("--force", knobs.force, "Overwrite output files that already exist (regular files only)");
  add_isolation_flags(&command, knobs.isolation, "an error naming the failure (crash, hang, write past the end, ...)");
}

// The profile's defaults first (include/mxconform/profile.h), then every knob the user gave.
void apply_knobs(const KnobOptions& knobs, QuantizeConfig& config) {
  config.output = parse_output_dtype(knobs.out_dtype);
  apply_profile(config, parse_profile(knobs.profile));
  const auto given = [&](std::size_t i) { return knobs.given[i]->count() > 0; };
  if (given(0)) config.emax_mode = parse_emax_mode(knobs.emax_mode);
  if (given(1)) config.fp8_nan = parse_fp8_nan(knobs.fp8_nan);
  if (given(2)) {
    config.fp4_lane_stride = static_cast<std::uint32_t>(
        parse_unsigned("--lane-stride", knobs.lane_stride, std::numeric_limits<std::uint32_t>::max()));
  }
  if (given(3)) config.fp4_high_parity = parse_parity("--high-parity", knobs.high_parity);
  if (given(4)) config.scale_layout = parse_scale_layout(knobs.scale_layout);
  if (given(5)) config.block_shape = parse_block_shape(knobs.block_shape);
}

// The subject to run: --backend, or by default the fastest built-in for the neuron profile and
// the oracle for every other profile (the built-ins implement neuron only).
std::string backend_or_default(const KnobOptions& knobs, const QuantizeConfig& config) {
  if (!knobs.backend.empty() || config.profile == ProfileId::kNeuron) return knobs.backend;
  return "oracle";
}

// The subject --backend names (a plug-in or command in a worker unless --in-process), refused
// when it does not support `config`.
std::shared_ptr<const Subject> select_backend(const std::string& wanted, const QuantizeConfig& config,
                                              const IsolationFlags& isolation) {
  std::shared_ptr<const Subject> subject = open_flagged_subject(wanted, isolation);
  const std::string reason = subject->unsupported_reason(config);
  if (!reason.empty()) {
    throw Error("backend '" + std::string(subject->name()) + "' does not support this configuration: " + reason);
  }
  return subject;
}

// The threads a quantize of `config` by `subject` runs on when `requested` are asked for.
reports::ThreadUse thread_use(const Subject& subject, const QuantizeConfig& config, std::size_t requested) {
  if (requested > 1 && !quantizes_in_parallel(subject)) {
    const char* why = subject.is_reference()            ? "the oracle runs on one thread"
                      : names_a_command(subject.name()) ? "a command subject runs on one thread"
                                                        : "a plug-in backend runs on one thread";
    return {1, why};
  }
  const std::size_t pieces = split_into_pieces(config, requested).size();
  if (pieces < requested) {
    return {pieces, "the tensor splits into at most " + std::to_string(pieces) + (pieces == 1 ? " piece" : " pieces") +
                        " of whole block rows"};
  }
  return {requested, ""};
}

int run_quantize(const std::string& input_path, const std::string& in_dtype, const std::string& data_path,
                 const std::string& scale_path, const KnobOptions& knobs, const std::optional<std::string>& threads_text,
                 bool quiet) {
  const std::size_t threads = threads_text ? parse_threads("--threads", *threads_text) : default_quantize_threads();
  check_output_paths({input_path}, {data_path, scale_path}, knobs.force);
  InputTensor input = read_input_tensor(input_path, in_dtype);
  QuantizeConfig config;
  config.input = input.dtype;
  config.partitions = input.partitions;
  config.free = input.free;
  apply_knobs(knobs, config);
  validate(config);
  const std::shared_ptr<const Subject> subject = select_backend(backend_or_default(knobs, config), config, knobs.isolation);
  const Subject& backend = *subject;

  const std::vector<std::uint16_t>& elements = input.bits;
  npy::Array data = empty_data_tensor(config);
  npy::Array scale = empty_scale_tensor(config);  // rows that no slot names stay 0: backends leave them
  quantize_parallel(backend, config, elements.data(), data.bytes.data(), scale.bytes.data(), threads);

  npy::write(data_path, data, knobs.force);
  npy::write(scale_path, scale, knobs.force);
  if (quiet) return kExitSuccess;
  // The outputs are written: a summary that cannot be computed (out of memory) does not fail the command.
  std::string text;
  try {
    const reports::QuantizeSummary summary = reports::summarize(config, elements.data(), data.bytes.data(), scale.bytes.data());
    text = reports::format_summary(config, summary, std::string(backend.name()), thread_use(backend, config, threads), input_path,
                          data_path, scale_path);
  } catch (const std::exception& error) {
    print_error("quantize", error.what(), "outputs written; the summary could not be computed");
    return kExitSuccess;
  }
  std::cerr << text;
  return kExitSuccess;
}

int run_dequantize(const std::string& data_path, const std::string& scale_path, const std::string& output_path,
                   const KnobOptions& knobs, bool quiet) {
  check_output_paths({data_path, scale_path}, {output_path}, knobs.force);
  QuantizeConfig config;
  apply_knobs(knobs, config);
  const OutputTensors tensors = read_output_tensors(data_path, scale_path, config);
  const npy::Array& data = tensors.data;
  const npy::Array& scale = tensors.scale;
  const std::shared_ptr<const Subject> subject = select_backend(backend_or_default(knobs, config), config, knobs.isolation);
  const Subject& backend = *subject;
  npy::Array output{npy::ElementType::kFloat32, {config.partitions, config.free},
                    std::vector<std::uint8_t>(config.partitions * config.free * sizeof(float))};
  std::vector<float> values(config.partitions * config.free);
  backend.dequantize(config, data.bytes.data(), scale.bytes.data(), values.data());
  std::memcpy(output.bytes.data(), values.data(), output.bytes.size());
  npy::write(output_path, output, knobs.force);
  if (!quiet) std::cerr << reports::format_dequantize_summary(config, std::string(backend.name()), data_path, scale_path, output_path);
  return kExitSuccess;
}

int run_backends() {
  const CpuFeatures here = CpuFeatures::detect();
  std::printf("CPU features: %s\n", here.to_string().c_str());
  std::printf("%-8s  %-22s  %-20s  %s\n", "name", "runs here", "needs", "description");
  for (const Subject* impl : built_in_subjects()) {
    const bool ok = runnable_here(*impl);
    const std::string runs = ok ? "yes" : "no (missing features)";
    std::printf("%-8s  %-22s  %-20s  %s\n", std::string(impl->name()).c_str(), runs.c_str(),
                impl->required_features().to_string().c_str(), std::string(impl->description()).c_str());
  }
  std::printf("default: %s\n", std::string(best_built_in().name()).c_str());
  return kExitSuccess;
}

int run(int argc, char** argv, const std::string& command) {
  CLI::App app{"mxconform: a differential conformance harness for OCP MX quantization (Neuron QuantizeMx semantics)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "mxconform 0.1.0");

  std::string input_path, in_dtype, data_path, scale_path, output_path;
  std::optional<std::string> threads;  // unset: every CPU this process may use
  bool quiet = false;
  KnobOptions quantize_knobs;
  CLI::App* quantize = app.add_subcommand("quantize", "Quantize a 2-D .npy tensor to MX data and E8M0 scales");
  quantize->add_option("--input", input_path, "Input .npy: <u2 raw bits [P, F], or <f2 float16 [P, F]")->required();
  quantize->add_option("--in-dtype", in_dtype, "bfloat16 or float16 (required for <u2 input)");
  quantize->add_option("--data", data_path, "Output data .npy (|u1 [P, F] for FP8, [P, F/2] for FP4)")->required();
  quantize->add_option("--scale", scale_path, "Output scale .npy (|u1 [rows, F/4] for 8x4 blocks, [P, F/32] for 1x32, [P/32, F] for 32x1)")->required();
  quantize->add_option("--threads", threads,
                       "Threads, 1 to 1024 (default: every CPU this process may use); a plug-in runs on one");
  quantize->add_flag("--quiet", quiet, "Do not print the summary");
  add_knob_options(*quantize, quantize_knobs);

  KnobOptions dequantize_knobs;
  CLI::App* dequantize = app.add_subcommand("dequantize", "Decode MX data and scales to float32");
  dequantize->add_option("--data", data_path, "Data .npy written by quantize")->required();
  dequantize->add_option("--scale", scale_path, "Scale .npy written by quantize")->required();
  dequantize->add_option("--output", output_path, "Output float32 .npy [P, F]")->required();
  dequantize->add_flag("--quiet", quiet, "Do not print the summary");
  add_knob_options(*dequantize, dequantize_knobs);

  CLI::App* backends = app.add_subcommand("backends", "List the implementations and whether this CPU runs them");
  ReplayOptions replay_options;
  CLI::App* replay = add_replay_command(app, replay_options);
  ExplainOptions explain_options;
  CLI::App* explain = add_explain_command(app, explain_options);
  // Listed for --help only: main() hands these to their own parsers before this one.
  app.add_subcommand("certify", "Certify a backend (built-in or plug-in .so) against the oracle; "
                                "`mxconform certify --help` for flags")
      ->allow_extras();
  app.add_subcommand("merge", "Merge shard certificates into one")->allow_extras();
  app.add_subcommand("serve", "Serve a subject over the subject protocol on stdin/stdout (for cmd: subjects; "
                              "`mxconform serve --help`)")
      ->allow_extras();
  app.add_subcommand("export", "Write the certify campaigns' cases as an offline bundle (.npy inputs and a manifest); "
                               "`mxconform export --help` for flags")
      ->allow_extras();
  app.add_subcommand("grade", "Grade the outputs a runner wrote into a bundle and write the certificate")->allow_extras();
  app.add_subcommand("verify", "Compare one quantized tensor produced elsewhere against the reference")->allow_extras();
  app.add_subcommand("fingerprint", "Name the profile and knobs a backend implements from a few deciding cases; "
                                    "`mxconform fingerprint --help` for flags")
      ->allow_extras();
#ifdef MXCONFORM_WITH_BENCH
  // Listed for --help only: main() hands `bench` to mxconform::bench::run before this parser.
  app.add_subcommand("bench", "Time every backend against speed-of-light kernels (Google Benchmark; "
                              "`mxconform bench --help` for flags)")
      ->allow_extras();
#endif

  if (const std::optional<int> status = parse_command_line(app, argc, argv, command)) return *status;
  if (quantize->parsed()) return run_quantize(input_path, in_dtype, data_path, scale_path, quantize_knobs, threads, quiet);
  if (dequantize->parsed()) return run_dequantize(data_path, scale_path, output_path, dequantize_knobs, quiet);
  if (backends->parsed()) return run_backends();
  if (replay->parsed()) return run_replay(replay_options);
  if (explain->parsed()) return run_explain(explain_options);
  throw std::logic_error("no subcommand ran although one parsed");
}

// The subcommand named by argv[1], for error messages; empty when argv[1] names none.
std::string command_name(int argc, char** argv) {
  if (argc < 2) return "";
  for (const char* known : {"quantize", "dequantize", "backends", "replay", "explain", "certify", "merge", "serve",
                            "export", "grade", "verify", "fingerprint"}) {
    if (std::strcmp(argv[1], known) == 0) return known;
  }
  return "";
}

}  // namespace
}  // namespace mxconform::cli

int main(int argc, char** argv) {
#ifdef MXCONFORM_WITH_BENCH
  // Before CLI11, so that Google Benchmark's own flags reach it untouched.
  if (argc > 1 && std::strcmp(argv[1], "bench") == 0) return mxconform::bench::run(argc - 1, argv + 1);
#endif
  using namespace mxconform::cli;
  const std::string command = command_name(argc, argv);
  try {
    if (command == "certify") return run_certify(argc - 1, argv + 1);
    if (command == "merge") return run_merge(argc - 1, argv + 1);
    if (command == "serve") return run_serve(argc - 1, argv + 1);
    if (command == "export") return run_export(argc - 1, argv + 1);
    if (command == "grade") return run_grade(argc - 1, argv + 1);
    if (command == "verify") return run_verify(argc - 1, argv + 1);
    if (command == "fingerprint") return run_fingerprint(argc - 1, argv + 1);
    return run(argc, argv, command);
  } catch (const mxconform::Error& error) {
    print_error(command, error.what());
    return kExitError;
  } catch (const std::bad_alloc&) {
    print_error(command, "out of memory");
    return kExitError;
  } catch (const std::exception& error) {
    print_error(command, error.what(), "internal error");
    return kExitInternalError;
  }
}
