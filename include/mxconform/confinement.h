#pragma once
// How the harness keeps the processes it starts for a subject (a plug-in's worker, a command
// speaking the subject protocol) from reaching back into it. Two halves: the harness makes itself
// non-dumpable, and the child drops every capability before it runs code it does not own. A
// process without CAP_SYS_PTRACE can then neither open /proc/<harness>/mem nor
// /proc/<harness>/fd/*, whatever user both run as (root included). A seccomp filter adds what the
// kernel would otherwise allow a process of the same user: signals to the harness, direct or
// through a file's owner (F_SETOWN), and characters pushed into a terminal.
#include <sys/types.h>

#include <string>

namespace mxconform {

// Called by the harness before it starts a subject process. Makes the harness non-dumpable (no
// core file, no /proc access for processes without CAP_SYS_PTRACE); idempotent.
void shield_harness();

enum class Confinement {
  // A plug-in's worker: killed when it signals any process but itself, traces or reads another
  // process, leaves its process group, or sets an owner for signal-driven I/O.
  kWorker,
  // A command subject (any program, which may run children of its own): killed when it signals
  // the harness or its process group or every process (-1), or sets an owner for signal-driven
  // I/O. It may signal its own children.
  kCommand,
};

// Called in a freshly forked child of `harness`, before it runs code it does not own: drops every
// capability (bounding, ambient, effective, permitted, inheritable), sets no_new_privs and loads
// the seccomp filter for `kind`; the filter survives exec. Returns one line for the certificate
// saying how the process is confined, including what could not be applied.
std::string confine_subject_process(pid_t harness, Confinement kind);

}  // namespace mxconform
