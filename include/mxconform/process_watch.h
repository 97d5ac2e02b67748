#pragma once
// What the harness needs to watch a child process it talks to over pipes (the certify worker, a
// command subject): a clock for deadlines, whether the child has ended, pipe ends that never block.
#include <sys/types.h>

namespace mxconform {

// Seconds on the monotonic clock (CLOCK_MONOTONIC): for deadlines, not for dates.
double monotonic_seconds();
// True when child `pid` has ended; does not reap it (waitid with WNOWAIT), so that whoever reaps
// it later still reads how it ended.
bool process_has_ended(pid_t pid);
// Sets O_NONBLOCK on `fd`, keeping its other status flags.
void set_nonblocking(int fd);

}  // namespace mxconform
