#pragma once
// A child process that a test backend leaves behind: it records its pid, and then sleeps for a
// minute keeping every descriptor it inherited (the worker's pipes and stderr included). mxconform
// must kill it with the worker; the certify test reads the pids back and checks that none lives.
#include <sys/types.h>

namespace mxconform::test_backends {

// The environment variable naming the file the child appends its pid (and a newline) to. Unset:
// the child records nothing.
inline constexpr const char* kGrandchildPidFileVariable = "MXCONFORM_TEST_GRANDCHILD_PIDFILE";
inline constexpr unsigned kLingerSeconds = 60;

enum class Session { kKeep, kLeave };  // kLeave: the child calls setsid() once it has recorded itself

struct LingeringChild {
  pid_t pid = -1;      // -1 when fork failed
  bool ready = false;  // it recorded its pid (and left the session if asked) and sleeps now
};

// Forks the child and returns once it is ready or has died.
LingeringChild start_lingering_child(Session session);

// For a child that died before it was ready: reaps it and ends this process the way the child
// ended (the same signal), so that the harness sees a crash; returns when the child exited.
void die_like(pid_t child);

}  // namespace mxconform::test_backends
