// confinement.cpp: a confined child cannot signal the harness (directly, or as the owner of
// signal-driven I/O) and cannot open the harness's /proc files; a command may still signal its
// own children. Each check runs in a forked child whose end the test reads: killed by SIGSYS when
// the seccomp filter stopped a call, exit 0 when the call was refused without it, exit 1 when
// the call went through.
#include "mxconform/confinement.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>

#include <gtest/gtest.h>

namespace mxconform {
namespace {

// How a child confined as `kind` ended after running `attempt`.
int child_status(Confinement kind, const std::function<int(pid_t harness)>& attempt) {
  shield_harness();
  const pid_t harness = ::getpid();
  const pid_t child = ::fork();
  if (child == 0) {
    confine_subject_process(harness, kind);
    ::_exit(attempt(harness));
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return status;
}

bool killed_by_the_filter(int status) { return WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS; }

TEST(Confinement, NeitherKindMaySignalTheHarness) {
  for (Confinement kind : {Confinement::kWorker, Confinement::kCommand}) {
    EXPECT_TRUE(killed_by_the_filter(child_status(kind, [](pid_t harness) { return ::kill(harness, 0) == 0 ? 1 : 0; })));
  }
  // -1 is every process the user may signal, the harness among them.
  EXPECT_TRUE(killed_by_the_filter(child_status(Confinement::kCommand, [](pid_t) { return ::kill(-1, 0) == 0 ? 1 : 0; })));
  // The kernel reads a pid from the lower half of the register: upper bits set do not slip past.
  EXPECT_TRUE(killed_by_the_filter(child_status(Confinement::kCommand, [](pid_t harness) {
    return ::syscall(SYS_kill, (1l << 32) | harness, 0) == 0 ? 1 : 0;
  })));
}

TEST(Confinement, NeitherKindMayBecomeAnOwnerOfSignalDrivenIo) {
  for (Confinement kind : {Confinement::kWorker, Confinement::kCommand}) {
    EXPECT_TRUE(killed_by_the_filter(child_status(kind, [](pid_t harness) {
      int ends[2];
      if (::pipe(ends) != 0) return 2;
      return ::fcntl(ends[0], F_SETOWN, harness) == 0 ? 1 : 0;
    })));
    // The high half of the command word is ignored by the kernel, and by the filter.
    EXPECT_TRUE(killed_by_the_filter(child_status(kind, [](pid_t) {
      int ends[2];
      if (::pipe(ends) != 0) return 2;
      return ::syscall(SYS_fcntl, ends[0], (1ul << 32) | F_SETSIG, SIGKILL) == 0 ? 1 : 0;
    })));
  }
}

TEST(Confinement, TheHarnessesProcFilesAreClosedToTheChild) {
  for (Confinement kind : {Confinement::kWorker, Confinement::kCommand}) {
    const int status = child_status(kind, [](pid_t harness) {
      const std::string proc = "/proc/" + std::to_string(harness);
      const bool mem = ::open((proc + "/mem").c_str(), O_RDWR) >= 0;
      const bool fd = ::open((proc + "/fd/1").c_str(), O_WRONLY) >= 0;
      return mem || fd ? 1 : 0;
    });
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  }
}

TEST(Confinement, ACommandMaySignalItsOwnChildren) {
  const int status = child_status(Confinement::kCommand, [](pid_t) {
    const pid_t grandchild = ::fork();
    if (grandchild == 0) {
      ::pause();
      ::_exit(0);
    }
    if (::kill(grandchild, SIGKILL) != 0) return 1;
    int ended = 0;
    ::waitpid(grandchild, &ended, 0);
    return WIFSIGNALED(ended) && WTERMSIG(ended) == SIGKILL ? 0 : 1;
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

}  // namespace
}  // namespace mxconform
