#include "instruction_count.h"

#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

namespace mxconform::bench {
namespace {

// The child's exit status when it may not be traced.
constexpr int kTraceRefused = 3;

// Steps taken from the child's first SIGSTOP to its second: `work`'s instructions plus the
// child's own way out of the first raise() and into the second.
std::optional<std::uint64_t> count_steps(const std::function<void()>& work, std::string* why_not) {
  const pid_t child = fork();
  if (child < 0) {
    *why_not = std::string("fork failed: ") + std::strerror(errno);
    return std::nullopt;
  }
  if (child == 0) {
    // 1. One untraced call: lazy binding, first-touch page faults and cold caches stay out.
    work();
    if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0) _exit(kTraceRefused);
    // 2. Stop; the parent single-steps from here to the next stop.
    raise(SIGSTOP);
    work();
    raise(SIGSTOP);
    _exit(0);
  }
  const auto give_up = [&](std::string reason) -> std::optional<std::uint64_t> {
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    *why_not = std::move(reason);
    return std::nullopt;
  };
  int status = 0;
  if (waitpid(child, &status, 0) != child) return give_up("waitpid failed");
  if (WIFEXITED(status)) {
    *why_not = WEXITSTATUS(status) == kTraceRefused ? "ptrace(PTRACE_TRACEME) refused" : "the child exited early";
    return std::nullopt;
  }
  if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGSTOP) return give_up("the child did not stop as expected");
  // 3. Each single step ends in a SIGTRAP stop; the second raise() ends in a SIGSTOP one.
  std::uint64_t steps = 0;
  while (true) {
    if (ptrace(PTRACE_SINGLESTEP, child, nullptr, nullptr) != 0) {
      return give_up(std::string("PTRACE_SINGLESTEP failed: ") + std::strerror(errno));
    }
    if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status)) return give_up("the child ended while stepped");
    if (WSTOPSIG(status) == SIGTRAP) {
      ++steps;
      continue;
    }
    if (WSTOPSIG(status) == SIGSTOP) break;
    return give_up(std::string("the child stopped with signal ") + strsignal(WSTOPSIG(status)));
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  return steps;
}

}  // namespace

std::optional<std::uint64_t> count_instructions(const std::function<void()>& work, std::string* why_not) {
  const std::optional<std::uint64_t> with_work = count_steps(work, why_not);
  if (!with_work) return std::nullopt;
  const std::optional<std::uint64_t> overhead = count_steps([] {}, why_not);
  if (!overhead) return std::nullopt;
  return *with_work > *overhead ? *with_work - *overhead : 0;
}

}  // namespace mxconform::bench
