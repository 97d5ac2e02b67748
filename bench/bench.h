#pragma once
// `mxconform bench`: times every selected backend against speed-of-light kernels with Google
// Benchmark.
namespace mxconform::bench {

// Runs the benchmarks. argv[0] names the subcommand; the rest are Google Benchmark flags
// (--benchmark_*) plus ours: --pin CPU and --backend NAME[,NAME...] (repeatable). Reports go
// to stdout in the format Google Benchmark is asked for, everything else to stderr. Returns 0
// on success, 1 after printing one `mxconform bench: error: ...` line.
int run(int argc, char** argv);

}  // namespace mxconform::bench
