#pragma once
// A command subject (`--backend 'cmd:COMMAND ARGS'`) as an Subject, for quantize,
// replay, explain, bench and the property suite: one process, started when the subject is
// opened, answering every call over the subject protocol. certify runs commands through its own
// worker kind instead (certify/command_backend.h).
#include <memory>
#include <string>

#include "mxconform/subject.h"

namespace mxconform {

// `spec` starts with "cmd:". Starts the process and reads its description; throws Error naming
// the command and the reason when it cannot be run, dies, hangs or breaks the protocol.
std::shared_ptr<const Subject> open_command_subject(const std::string& spec);

}  // namespace mxconform
