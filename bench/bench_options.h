#pragma once
// The flags `mxconform bench` adds to Google Benchmark's: --pin, --backend and
// --count-instructions.
#include <optional>
#include <string>
#include <memory>
#include <vector>

#include "mxconform/subject.h"

namespace mxconform::bench {

struct BenchOptions {
  std::vector<const Subject*> backends;  // built-ins in registry order, then plug-ins; no repeats
  bool backends_named = false;                  // --backend was given
  std::vector<std::shared_ptr<const Subject>> owned;  // keeps plug-ins loaded
  std::optional<int> pin_cpu;                   // set only when --pin was given
  bool count_instructions = false;              // --count-instructions: count, do not time
  std::vector<char*> benchmark_argv;            // "mxconform bench", then every flag not ours
};

// Takes `--pin CPU`, `--pin=CPU`, `--backend NAME[,NAME...]` and `--backend=...` out of
// argv[1..argc) (argv[0] is the subcommand name); --backend may repeat. Without --backend,
// selects every registered backend this CPU can run. Throws Error for a missing or malformed
// value, an unknown backend or one this CPU cannot run.
BenchOptions parse_bench_options(int argc, char** argv);

// Restricts this process to `cpu` (sched_setaffinity). Throws Error when `cpu` is not in the
// set the process may already run on.
void pin_to_cpu(int cpu);

// The CPUs this process may run on, as "0-3,6".
std::string allowed_cpus();

// Our flags, for `mxconform bench --help` (printed before Google Benchmark's own).
const char* bench_usage();

}  // namespace mxconform::bench
