#include "bench_options.h"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <string_view>

#include "mxconform/error.h"
#include "mxconform/registry.h"
#include "mxconform/open_subject.h"

namespace mxconform::bench {
namespace {

char kProgramName[] = "mxconform bench";

constexpr std::string_view kPinFlag = "--pin";
constexpr std::string_view kBackendFlag = "--backend";
constexpr std::string_view kCountFlag = "--count-instructions";

// The value of `flag` when `argv[*index]` is `flag VALUE` (advancing *index) or `flag=VALUE`;
// nullopt when the argument is some other flag.
std::optional<std::string> take_value(std::string_view flag, int argc, char** argv, int* index) {
  const std::string_view argument = argv[*index];
  if (argument == flag) {
    if (*index + 1 >= argc) throw Error(std::string(flag) + " needs a value");
    return std::string(argv[++*index]);
  }
  if (argument.size() > flag.size() && argument.substr(0, flag.size()) == flag && argument[flag.size()] == '=') {
    return std::string(argument.substr(flag.size() + 1));
  }
  return std::nullopt;
}

int parse_cpu(const std::string& text) {
  int cpu = -1;
  const char* end = text.data() + text.size();
  const auto [stop, status] = std::from_chars(text.data(), end, cpu);
  if (text.empty() || status != std::errc() || stop != end || cpu < 0 || cpu >= CPU_SETSIZE) {
    throw Error("--pin '" + text + "': expected a CPU number from 0 to " + std::to_string(CPU_SETSIZE - 1) +
                " (this process may run on " + allowed_cpus() + ")");
  }
  return cpu;
}

}  // namespace

BenchOptions parse_bench_options(int argc, char** argv) {
  BenchOptions options;
  options.benchmark_argv.push_back(kProgramName);
  std::vector<std::shared_ptr<const Subject>> wanted;
  for (int i = 1; i < argc; ++i) {
    if (std::optional<std::string> cpu = take_value(kPinFlag, argc, argv, &i)) {
      options.pin_cpu = parse_cpu(*cpu);
    } else if (std::optional<std::string> list = take_value(kBackendFlag, argc, argv, &i)) {
      std::string_view rest = *list;
      while (true) {
        const std::size_t comma = rest.find(',');
        const std::string_view each = rest.substr(0, comma);
        if (each.empty()) throw Error("--backend '" + *list + "': empty backend name; choose " + subject_choices());
        wanted.push_back(open_subject(std::string(each)));
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    } else if (argv[i] == kCountFlag) {
      options.count_instructions = true;
    } else {
      options.benchmark_argv.push_back(argv[i]);
    }
  }
  // Built-ins in registry order, then plug-ins in the order given; no repeats.
  options.backends_named = !wanted.empty();
  if (wanted.empty()) {
    for (const Subject* impl : built_in_subjects()) {
      if (runnable_here(*impl)) wanted.push_back(open_subject(std::string(impl->name())));
    }
  }
  const auto kept = [&](const Subject& subject) {
    return std::any_of(options.owned.begin(), options.owned.end(),
                       [&](const auto& each) { return each->name() == subject.name(); });
  };
  for (const Subject* impl : built_in_subjects()) {
    for (const auto& each : wanted) {
      if (each.get() == impl && !kept(*impl)) options.owned.push_back(each);
    }
  }
  for (const auto& each : wanted) {
    if (!kept(*each)) options.owned.push_back(each);
  }
  for (const auto& each : options.owned) options.backends.push_back(each.get());
  if (options.backends.empty()) throw Error("no backend this CPU can run");
  return options;
}

void pin_to_cpu(int cpu) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
    throw Error(std::string("--pin: cannot read this process's CPU affinity: ") + std::strerror(errno));
  }
  if (!CPU_ISSET(cpu, &allowed)) {
    throw Error("--pin " + std::to_string(cpu) + ": this process may run only on CPUs " + allowed_cpus());
  }
  cpu_set_t only;
  CPU_ZERO(&only);
  CPU_SET(cpu, &only);
  if (sched_setaffinity(0, sizeof only, &only) != 0) {
    throw Error("--pin " + std::to_string(cpu) + ": sched_setaffinity failed: " + std::strerror(errno));
  }
}

std::string allowed_cpus() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return "(unknown)";
  std::string text;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &allowed)) ++last;
    text += (text.empty() ? "" : ",") + std::to_string(cpu) + (last > cpu ? "-" + std::to_string(last) : "");
    cpu = last;
  }
  return text.empty() ? "(none)" : text;
}

const char* bench_usage() {
  return "usage: mxconform bench [--pin CPU] [--backend NAME[,NAME...]]... [--count-instructions]\n"
         "                       [--benchmark_* flags]\n"
         "\n"
         "Times quantize for every selected backend x input dtype (bfloat16, float16) x output\n"
         "(fp8_e4m3, fp8_e5m2, fp4) at 256KiB (L2-resident) and 64MiB (streaming) of input; the\n"
         "oracle runs at 8KiB only. Also times speed-of-light kernels (sol/...) and copies\n"
         "(baseline/...). sol_ratio = the time of the speed-of-light kernel that moves the same\n"
         "bytes (streaming stores at 64MiB, ordinary ones at 256KiB) over the case's time,\n"
         "the two run in turn in every iteration so that both see the same machine load.\n"
         "float16 cases at 64MiB also report bfloat16_ratio: the same backend's bfloat16 time\n"
         "over the float16 time, paired the same way.\n"
         "Rows ending /threads:N run at 64MiB on N threads (every CPU this process may use) through\n"
         "quantize_parallel: the fastest backend (or each --backend named) against the\n"
         "speed-of-light kernel on the same pieces of whole block rows, with scaling = the N-thread\n"
         "rate over the same backend's 1-thread rate, paired the same way.\n"
         "\n"
         "  --pin CPU            pin the process to CPU before running (default: not pinned)\n"
         "  --backend NAME       a backend to time; repeatable or comma-separated\n"
         "                       (default: every backend this CPU can run; see `mxconform backends`)\n"
         "  --count-instructions instead of timing, count the instructions of one quantize call per\n"
         "                       case at 256KiB (and of each speed-of-light kernel) by single-stepping\n"
         "                       it under ptrace, and print them per element\n"
         "\n"
         "Google Benchmark flags:\n";
}

}  // namespace mxconform::bench
