#include "mxconform/confinement.h"

#include <linux/capability.h>
#include <seccomp.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <fcntl.h>

namespace mxconform {
namespace {

// Every capability out of the bounding and ambient sets (so that no exec, set-user-ID or not,
// gives one back) and out of the effective, permitted and inheritable sets. Without
// CAP_SYS_PTRACE the kernel refuses /proc/<pid>/mem and /proc/<pid>/fd of a non-dumpable process
// even to the same user. Returns false when a set could not be emptied.
bool drop_capabilities() {
  bool dropped = true;
  for (int capability = 0; ::prctl(PR_CAPBSET_READ, capability, 0, 0, 0) >= 0; ++capability) {
    // EPERM without CAP_SETPCAP: such a process has no capability to lose from the bounding set
    // that it could use, as long as the sets below are empty too.
    if (::prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 && errno != EPERM) dropped = false;
  }
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = {};
  if (::syscall(SYS_capset, &header, none) != 0) dropped = false;
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) dropped = false;
  return dropped;
}

// A 32-bit argument as the kernel reads it (pid_t, int, unsigned int): the upper half of the
// register is ignored, so a rule on one compares only the lower half (a plain comparison sees all
// 64 bits, and a caller could set the upper ones to slip past it).
scmp_datum_t as_u32(std::int64_t value) { return static_cast<scmp_datum_t>(static_cast<std::uint32_t>(value)); }
constexpr scmp_datum_t kLowHalf = 0xFFFF'FFFF;
scmp_arg_cmp low_half_is(unsigned argument, std::int64_t value) {
  return scmp_arg_cmp{argument, SCMP_CMP_MASKED_EQ, kLowHalf, as_u32(value)};
}

// The rules both kinds share: no owner for signal-driven I/O (fcntl F_SETOWN, F_SETOWN_EX,
// F_SETSIG; ioctl FIOSETOWN, SIOCSPGRP), which would let the kernel deliver any signal to the
// harness on the process's behalf, and nothing pushed into or taken over from a terminal.
int add_shared_rules(scmp_filter_ctx filter, std::uint32_t action) {
  int failed = 0;
  for (int command : {F_SETOWN, F_SETOWN_EX, F_SETSIG}) {
    failed |= ::seccomp_rule_add(filter, action, SCMP_SYS(fcntl), 1, low_half_is(1, command));
  }
  for (unsigned long request : {static_cast<unsigned long>(FIOSETOWN), static_cast<unsigned long>(SIOCSPGRP),
                                static_cast<unsigned long>(TIOCSTI), static_cast<unsigned long>(TIOCSPGRP),
                                static_cast<unsigned long>(TIOCLINUX)}) {
    failed |= ::seccomp_rule_add(filter, action, SCMP_SYS(ioctl), 1, low_half_is(1, static_cast<std::int64_t>(request)));
  }
  // io_uring runs its operations outside this filter.
  failed |= ::seccomp_rule_add(filter, action, SCMP_SYS(io_uring_setup), 0);
  return failed;
}

int add_worker_rules(scmp_filter_ctx filter, std::uint32_t action) {
  // Any target but its own pid, all 64 bits compared: upper bits set are refused too.
  const scmp_datum_t self = as_u32(::getpid());
  int failed = 0;
  for (int call : {SCMP_SYS(kill), SCMP_SYS(tgkill), SCMP_SYS(rt_sigqueueinfo), SCMP_SYS(rt_tgsigqueueinfo)}) {
    failed |= ::seccomp_rule_add(filter, action, call, 1, SCMP_A0_64(SCMP_CMP_NE, self));
  }
  for (int call : {SCMP_SYS(tkill), SCMP_SYS(pidfd_send_signal), SCMP_SYS(pidfd_open), SCMP_SYS(pidfd_getfd),
                   SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev), SCMP_SYS(setsid),
                   SCMP_SYS(setpgid)}) {
    failed |= ::seccomp_rule_add(filter, action, call, 0);
  }
  return failed;
}

int add_command_rules(scmp_filter_ctx filter, std::uint32_t action, pid_t harness) {
  // Its children are its own business; the harness, the harness's process group and "every
  // process" (-1) are not. A pidfd can be any /proc/<pid> directory, so no pidfd signals at all.
  const pid_t harness_group = ::getpgid(harness);
  int failed = 0;
  for (std::int64_t target : {std::int64_t{harness}, -std::int64_t{harness_group}, std::int64_t{-1}}) {
    failed |= ::seccomp_rule_add(filter, action, SCMP_SYS(kill), 1, low_half_is(0, target));
  }
  for (int call : {SCMP_SYS(tgkill), SCMP_SYS(tkill), SCMP_SYS(rt_sigqueueinfo), SCMP_SYS(rt_tgsigqueueinfo),
                   SCMP_SYS(pidfd_open)}) {
    failed |= ::seccomp_rule_add(filter, action, call, 1, low_half_is(0, harness));
  }
  for (int call : {SCMP_SYS(pidfd_send_signal), SCMP_SYS(pidfd_getfd)}) {
    failed |= ::seccomp_rule_add(filter, action, call, 0);
  }
  return failed;
}

}  // namespace

void shield_harness() { ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

std::string confine_subject_process(pid_t harness, Confinement kind) {
  std::string how = drop_capabilities() ? "no capabilities, no_new_privs" : "capabilities could not all be dropped";
  const std::uint32_t kill_process = SCMP_ACT_KILL_PROCESS;
  scmp_filter_ctx filter = ::seccomp_init(SCMP_ACT_ALLOW);
  if (filter == nullptr) return how + ", no seccomp filter (unavailable)";
  int failed = add_shared_rules(filter, kill_process);
  failed |= kind == Confinement::kWorker ? add_worker_rules(filter, kill_process)
                                         : add_command_rules(filter, kill_process, harness);
  const int loaded = failed != 0 ? -1 : ::seccomp_load(filter);
  ::seccomp_release(filter);
  if (loaded != 0) return how + ", no seccomp filter (it could not be loaded)";
  if (kind == Confinement::kWorker) {
    return how +
           ", seccomp filter (no signals to other processes, no tracing, no leaving the process group, no "
           "signal-driven I/O owner, no terminal input), own session and process group";
  }
  return how +
         ", seccomp filter (no signals to the harness, its process group or every process, no signal-driven I/O "
         "owner, no terminal input), own session and process group";
}

}  // namespace mxconform
