// `mxconform bench`: registers every case at run time and hands the run to Google Benchmark.
#include "bench.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench_cases.h"
#include "bench_options.h"
#include "copy_baseline.h"
#include "data_stores.h"
#include "instruction_count.h"
#include "mxconform/error.h"
#include "mxconform/subject.h"
#include "mxconform/parallel_quantize.h"
#include "mxconform/registry.h"
#include "speed_of_light.h"
#include "workspace.h"

namespace mxconform::bench {
namespace {


double seconds(std::chrono::steady_clock::duration elapsed) { return std::chrono::duration<double>(elapsed).count(); }

// The speed-of-light reference for (size, family) on `threads` threads: the kernel of
// Workspace::sol_reference over the whole tensor for one thread, otherwise on each piece of
// split_into_pieces (the cut quantize_parallel makes) run by for_each_piece. It reads the input of
// `input` dtype and writes the workspace's data and scale buffers.
struct SolRun {
  std::function<void()> run;
  std::string_view stores;
};

SolRun sol_run(Workspace& workspace, const BenchSize& size, OutputFamily family, InputDtype input, std::size_t threads) {
  const Workspace::SolReference& reference = workspace.sol_reference(size, family);
  const SolKernel kernel = reference.kernel;
  const std::uint16_t* sol_input = workspace.input(size, input);
  std::uint8_t* data = workspace.data(size);
  std::uint8_t* scale = workspace.scale(size);
  if (threads <= 1) {
    return {[=] { kernel(sol_input, size.elements(), data, scale); }, reference.stores};
  }
  // The kernel's scale bytes are contiguous, one per 32 elements: a piece's start at input_offset / 32.
  const std::vector<QuantizePiece> pieces = split_into_pieces(case_config(size, input, family_dtype(family)), threads);
  return {[=] {
            for_each_piece(pieces, [&](const QuantizePiece& piece) {
              kernel(sol_input + piece.input_offset, piece.config.partitions * piece.config.free,
                     data + piece.data_offset, scale + piece.input_offset / kBlockSize);
            });
          },
          reference.stores};
}

// A run timed beside the subject in every iteration, reported as the counter `counter`: its total
// time over the subject's (a rate ratio of subject over companion).
struct Companion {
  std::string counter;
  std::function<void()> run;
};

// Runs `subject` and the speed-of-light reference in turn, once per benchmark iteration, and
// times each with the steady clock. The benchmark's time is the subject's alone (manual time, so
// items_per_second and bytes_per_second are the subject's). sol_ratio is the reference's total
// time over the subject's, over the same iterations: a subject that only moved its bytes would
// score about 1, a compute-bound one less. Pairing the two makes the ratio robust to the
// machine's load changing during the run, which both then see.
//
// (A plain counter rather than a kIsRate one: Google Benchmark prints rate counters with a
// "/s" unit, wrong for a dimensionless ratio.)
//
// The reference reads the subject's own input buffer (it moves raw 16-bit words), so that at the
// L2-resident size it does not evict the subject's input. At the streaming size, a float16 case
// also runs the same backend on the bfloat16 input in every iteration and reports
// bfloat16_ratio, the bfloat16 time over its own (1: as fast; 0.8: 20 % slower). (At the L2
// size the two inputs do not fit in L2 together, so each would evict the other.) A
// multi-threaded case runs the same backend on one thread instead and reports scaling.
void time_paired(benchmark::State& state, const BenchSize& size, const Traffic& bytes,
                 const std::function<void()>& subject, const SolRun& reference, const Companion& companion = {}) {
  using Clock = std::chrono::steady_clock;
  double subject_seconds = 0.0;
  double reference_seconds = 0.0;
  double companion_seconds = 0.0;
  for (auto _ : state) {
    const Clock::time_point start = Clock::now();
    subject();
    benchmark::ClobberMemory();
    const Clock::time_point middle = Clock::now();
    reference.run();
    benchmark::ClobberMemory();
    const Clock::time_point end = Clock::now();
    if (companion.run) {
      companion.run();
      benchmark::ClobberMemory();
      companion_seconds += seconds(Clock::now() - end);
    }
    state.SetIterationTime(seconds(middle - start));
    subject_seconds += seconds(middle - start);
    reference_seconds += seconds(end - middle);
  }
  if (companion.run) state.counters[companion.counter] = companion_seconds / subject_seconds;
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(size.elements()));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes.total()));
  state.counters["sol_ratio"] = subject_seconds > 0.0 ? reference_seconds / subject_seconds : 0.0;
  state.SetLabel("sol: " + std::string(reference.stores));
}

void time_quantize(benchmark::State& state, Workspace& workspace, const Subject& impl,
                   const BenchSize& size, const QuantizeConfig& config, OutputFamily family) {
  const std::uint16_t* input = workspace.input(size, config.input);
  std::uint8_t* data = workspace.data(size);
  std::uint8_t* scale = workspace.scale(size);
  QuantizeConfig bfloat16_config = config;
  bfloat16_config.input = InputDtype::kBfloat16;
  const std::uint16_t* bfloat16_input = workspace.input(size, InputDtype::kBfloat16);
  Companion bfloat16_quantize;
  if (config.input == InputDtype::kFloat16 && size.elements() >= kStreamingSize.elements()) {
    bfloat16_quantize = {"bfloat16_ratio", [&] { impl.quantize(bfloat16_config, bfloat16_input, data, scale); }};
  }
  time_paired(state, size, traffic(config), [&] { impl.quantize(config, input, data, scale); },
              sol_run(workspace, size, family, config.input, 1), bfloat16_quantize);
}

// quantize_parallel on `threads` threads against the speed-of-light kernel on the same pieces,
// with the backend on one thread as the companion: scaling is the N-thread rate over the 1-thread one.
void time_quantize_threads(benchmark::State& state, Workspace& workspace, const Subject& impl,
                           const BenchSize& size, const QuantizeConfig& config, OutputFamily family,
                           std::size_t threads) {
  const std::uint16_t* input = workspace.input(size, config.input);
  std::uint8_t* data = workspace.data(size);
  std::uint8_t* scale = workspace.scale(size);
  time_paired(state, size, traffic(config), [&] { quantize_parallel(impl, config, input, data, scale, threads); },
              sol_run(workspace, size, family, config.input, threads),
              {"scaling", [&] { impl.quantize(config, input, data, scale); }});
}

// The reference kernel itself, paired with itself: its sol_ratio shows how far apart two
// measurements of the same work land on this machine. On more than one thread, its scaling is
// the N-thread kernel's rate over the 1-thread kernel's.
void time_sol(benchmark::State& state, Workspace& workspace, const BenchSize& size, OutputFamily family,
              std::size_t threads) {
  const QuantizeConfig config = case_config(size, InputDtype::kBfloat16, family_dtype(family));
  const SolRun reference = sol_run(workspace, size, family, InputDtype::kBfloat16, threads);
  Companion one_thread;
  if (threads > 1) one_thread = {"scaling", sol_run(workspace, size, family, InputDtype::kBfloat16, 1).run};
  time_paired(state, size, traffic(config), reference.run, reference, one_thread);
}

enum class CopyKind { kMemcpy, kNonTemporal };

// Bytes per second counts bytes read plus bytes written, as for the quantize cases.
void time_copy(benchmark::State& state, Workspace& workspace, const BenchSize& size, CopyKind kind) {
  const std::uint16_t* source = workspace.input(size, InputDtype::kBfloat16);
  std::uint8_t* destination = workspace.copy_destination(size);
  const std::size_t bytes = size.input_bytes();
  for (auto _ : state) {
    if (kind == CopyKind::kMemcpy) {
      std::memcpy(destination, source, bytes);
    } else {
      copy_non_temporal(source, destination, bytes);
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(2 * bytes));
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const std::size_t model = line.find_first_not_of(" \t", line.find(':') + 1);
    if (line.find(':') != std::string::npos && model != std::string::npos) return line.substr(model);
  }
  return "unknown (no model name in /proc/cpuinfo)";
}

void print_banner(const BenchOptions& options) {
  std::string backends;
  for (const Subject* impl : options.backends) {
    backends += (backends.empty() ? "" : ", ") + std::string(impl->name());
    if (impl->is_reference()) backends += " (" + std::string(kOracleSize.name) + " only)";
  }
  const std::string pinning =
      options.pin_cpu ? "pinned to CPU " + std::to_string(*options.pin_cpu) : "not pinned (--pin CPU to pin)";
  const QuantizeConfig knobs;
  std::fprintf(stderr,
               "mxconform bench: CPU %s, %u logical CPUs, threads:N rows with N = %zu, %s\n"
               "mxconform bench: backends: %s\n"
               "mxconform bench: speed-of-light kernels: %s; non-temporal copy: %s\n"
               "mxconform bench: knobs: emax_mode=%s fp8_nan=%s lane_stride=%u high_parity=%d scale_layout=%s\n"
               "mxconform bench: FP4 streaming stores at 64 MiB: %s (%s; MXCONFORM_FP4_STREAMING=half-lines or "
               "whole-lines overrides)\n"
               "mxconform bench: input prefetch at 64 MiB: %s (MXCONFORM_PREFETCH=rows or none overrides)\n",
               cpu_model().c_str(), std::thread::hardware_concurrency(), default_quantize_threads(), pinning.c_str(),
               backends.c_str(),
               std::string(sol_kernel_isa()).c_str(), std::string(copy_non_temporal_isa()).c_str(),
               std::string(name(knobs.emax_mode)).c_str(), std::string(name(knobs.fp8_nan)).c_str(),
               knobs.fp4_lane_stride, knobs.fp4_high_parity, std::string(name(knobs.scale_layout)).c_str(),
               impl::simd::name(impl::simd::fp4_streaming()), describe(detect_cpu_model()).c_str(),
               impl::simd::name(impl::simd::input_prefetch()));
  // The same facts in the JSON output's context.
  benchmark::AddCustomContext("cpu_model", cpu_model());
  benchmark::AddCustomContext("cpu_vendor", std::string(name(detect_cpu_vendor())));
  benchmark::AddCustomContext("cpu_family_model", describe(detect_cpu_model()));
  benchmark::AddCustomContext("fp4_streaming", impl::simd::name(impl::simd::fp4_streaming()));
  benchmark::AddCustomContext("input_prefetch", impl::simd::name(impl::simd::input_prefetch()));
}

void print_usage() {
  std::fputs(bench_usage(), stdout);
  benchmark::PrintDefaultHelp();
}

// Calls `add(case_name, config, family)` for every quantize case of `impl` at `size` (names end
// with `suffix`) that `impl` supports; prints why it skips the others.
template <typename Add>
void for_each_supported_case(const Subject& impl, const BenchSize& size, const std::string& suffix, Add add) {
  for (InputDtype input : kInputDtypes) {
    for (const OutputCase& output : kOutputCases) {
      const std::string case_name = "quantize/" + std::string(impl.name()) + "/" + std::string(name(input)) + "/" +
                                    std::string(output.name) + "/" + std::string(size.name) + suffix;
      const QuantizeConfig config = case_config(size, input, output.dtype);
      const std::string reason = impl.unsupported_reason(config);
      if (!reason.empty()) {
        std::fprintf(stderr, "mxconform bench: skipping %s: not supported: %s\n", case_name.c_str(), reason.c_str());
        continue;
      }
      add(case_name, config, output.family);
    }
  }
}

void register_size(Workspace& workspace, const BenchSize& size, const std::vector<const Subject*>& backends,
                   bool with_copies) {
  const std::string suffix = "/" + std::string(size.name);
  if (with_copies) {
    benchmark::RegisterBenchmark(("baseline/memcpy" + suffix).c_str(), time_copy, std::ref(workspace), size,
                                 CopyKind::kMemcpy);
    benchmark::RegisterBenchmark(("baseline/nt_copy" + suffix).c_str(), time_copy, std::ref(workspace), size,
                                 CopyKind::kNonTemporal);
  }
  for (OutputFamily family : {OutputFamily::kFp8, OutputFamily::kFp4}) {
    benchmark::RegisterBenchmark(("sol/" + std::string(name(family)) + suffix).c_str(), time_sol, std::ref(workspace),
                                 size, family, std::size_t{1})
        ->UseManualTime();
  }
  for (const Subject* impl : backends) {
    for_each_supported_case(*impl, size, "", [&](const std::string& case_name, const QuantizeConfig& config,
                                                 OutputFamily family) {
      benchmark::RegisterBenchmark(case_name.c_str(), time_quantize, std::ref(workspace), std::cref(*impl), size,
                                   config, family)
          ->UseManualTime();
    });
  }
}

// The multi-threaded rows at `size`, named .../threads:N: the speed-of-light kernels and each of
// `backends` on `threads` threads through quantize_parallel.
void register_threads(Workspace& workspace, const BenchSize& size, const std::vector<const Subject*>& backends,
                      std::size_t threads) {
  const std::string suffix = "/threads:" + std::to_string(threads);
  for (OutputFamily family : {OutputFamily::kFp8, OutputFamily::kFp4}) {
    benchmark::RegisterBenchmark(("sol/" + std::string(name(family)) + "/" + std::string(size.name) + suffix).c_str(),
                                 time_sol, std::ref(workspace), size, family, threads)
        ->UseManualTime();
  }
  for (const Subject* impl : backends) {
    for_each_supported_case(*impl, size, suffix, [&](const std::string& case_name, const QuantizeConfig& config,
                                                     OutputFamily family) {
      benchmark::RegisterBenchmark(case_name.c_str(), time_quantize_threads, std::ref(workspace), std::cref(*impl),
                                   size, config, family, threads)
          ->UseManualTime();
    });
  }
}

// The backends of the multi-threaded rows: the ones --backend named, or else the fastest built-in
// this CPU runs; never the oracle, and a plug-in (which quantize_parallel runs on one thread) with a note.
std::vector<const Subject*> threaded_backends(const BenchOptions& options) {
  if (!options.backends_named) return {&best_built_in()};
  std::vector<const Subject*> result;
  for (const Subject* impl : options.backends) {
    if (impl->is_reference()) continue;
    if (quantizes_in_parallel(*impl)) {
      result.push_back(impl);
    } else {
      std::fprintf(stderr, "mxconform bench: no multi-threaded rows for %s: a plug-in runs on one thread\n",
                   std::string(impl->name()).c_str());
    }
  }
  return result;
}

// --count-instructions: the instructions of one call of each speed-of-light kernel and of each
// quantize case of `backends` at the L2 size, per element, on the bench input. Returns the exit
// status (1 when this process may not single-step a child).
int print_instruction_counts(const std::vector<const Subject*>& backends) {
  const BenchSize& size = kL2Size;
  Workspace workspace;
  std::uint8_t* data = workspace.data(size);
  std::uint8_t* scale = workspace.scale(size);
  std::printf("instructions per element, one call on the %zu x %zu bench input (%s), CPU %s\n", size.partitions,
              size.free, std::string(size.name).c_str(), cpu_model().c_str());
  const auto print_count = [&](const std::string& row, const std::function<void()>& work) {
    std::string why_not;
    const std::optional<std::uint64_t> count = count_instructions(work, &why_not);
    if (!count) throw Error("--count-instructions: " + why_not);
    std::printf("%-44s %10llu %6.3f\n", row.c_str(), static_cast<unsigned long long>(*count),
                static_cast<double>(*count) / static_cast<double>(size.elements()));
  };
  for (OutputFamily family : {OutputFamily::kFp8, OutputFamily::kFp4}) {
    const SolKernel kernel = workspace.sol_reference(size, family).kernel;
    const std::uint16_t* input = workspace.input(size, InputDtype::kBfloat16);
    print_count("sol/" + std::string(name(family)) + " (" + std::string(sol_kernel_isa()) + ")",
                [&] { kernel(input, size.elements(), data, scale); });
  }
  for (const Subject* impl : backends) {
    if (impl->is_reference()) continue;
    for_each_supported_case(*impl, size, "", [&](const std::string& case_name, const QuantizeConfig& config,
                                                 OutputFamily) {
      const std::uint16_t* input = workspace.input(size, config.input);
      print_count(case_name, [&] { impl->quantize(config, input, data, scale); });
    });
  }
  return 0;
}

int run_benchmarks(int argc, char** argv) {
  BenchOptions options = parse_bench_options(argc, argv);
  int benchmark_argc = static_cast<int>(options.benchmark_argv.size());
  options.benchmark_argv.push_back(nullptr);
  benchmark::Initialize(&benchmark_argc, options.benchmark_argv.data(), print_usage);
  if (benchmark_argc > 1) {
    throw Error("unrecognized argument '" + std::string(options.benchmark_argv[1]) +
                "'; see `mxconform bench --help`");
  }
  if (options.pin_cpu) pin_to_cpu(*options.pin_cpu);
  if (options.count_instructions) return print_instruction_counts(options.backends);
  print_banner(options);

  // Sizes in increasing order; the oracle runs at the small size only, the others at the two
  // large ones.
  std::vector<const Subject*> oracle_only;
  std::vector<const Subject*> others;
  for (const Subject* impl : options.backends) (impl->is_reference() ? oracle_only : others).push_back(impl);
  Workspace workspace;
  if (!oracle_only.empty()) register_size(workspace, kOracleSize, oracle_only, /*with_copies=*/false);
  register_size(workspace, kL2Size, others, /*with_copies=*/true);
  register_size(workspace, kStreamingSize, others, /*with_copies=*/true);
  // On every CPU this process may use (after --pin, one).
  const std::size_t threads = default_quantize_threads();
  if (threads > 1) {
    register_threads(workspace, kStreamingSize, threaded_backends(options), threads);
  } else {
    std::fprintf(stderr, "mxconform bench: no multi-threaded rows: this process may run on 1 CPU\n");
  }

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace

int run(int argc, char** argv) {
  try {
    return run_benchmarks(argc, argv);
  } catch (const Error& error) {
    std::fprintf(stderr, "mxconform bench: error: %s\n", error.what());
    return 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "mxconform bench: error: %s\n", error.what());
    return 1;
  }
}

}  // namespace mxconform::bench
