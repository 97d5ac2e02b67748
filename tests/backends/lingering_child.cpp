#include "lingering_child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace mxconform::test_backends {
namespace {

// Appends this process's pid to `path`; only async-signal-safe calls (it runs after fork).
void append_own_pid(const char* path) {
  if (path == nullptr) return;
  const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char line[32];
  const int length = std::snprintf(line, sizeof line, "%ld\n", static_cast<long>(::getpid()));
  if (::write(fd, line, static_cast<std::size_t>(length)) != length) {
    // Nothing to do about it: the test then finds fewer pids than children.
  }
  ::close(fd);
}

}  // namespace

LingeringChild start_lingering_child(Session session) {
  const char* pid_file = std::getenv(kGrandchildPidFileVariable);
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) return {};
  LingeringChild child;
  child.pid = ::fork();
  if (child.pid == 0) {
    ::close(ready[0]);
    append_own_pid(pid_file);
    if (session == Session::kLeave && ::setsid() < 0) ::_exit(1);
    const char byte = 1;
    if (::write(ready[1], &byte, 1) != 1) ::_exit(1);
    ::close(ready[1]);
    ::sleep(kLingerSeconds);
    ::_exit(0);
  }
  ::close(ready[1]);
  char byte = 0;
  ssize_t n = 0;
  do {
    n = child.pid > 0 ? ::read(ready[0], &byte, 1) : 0;
  } while (n < 0 && errno == EINTR);
  ::close(ready[0]);
  child.ready = n == 1;
  return child;
}

void die_like(pid_t child) {
  int status = 0;
  pid_t reaped;
  do {
    reaped = ::waitpid(child, &status, 0);
  } while (reaped < 0 && errno == EINTR);
  if (reaped != child || !WIFSIGNALED(status)) return;
  const int signal_number = WTERMSIG(status);
  sigset_t just_that;
  sigemptyset(&just_that);
  sigaddset(&just_that, signal_number);
  ::sigprocmask(SIG_UNBLOCK, &just_that, nullptr);
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

}  // namespace mxconform::test_backends
