#pragma once
// Turning what the user names with --backend into a subject, for every command: a built-in name
// (`mxconform backends` lists them), a path to a plug-in shared library (anything with a '/'), or
// `cmd:COMMAND ARGS`, a command speaking the subject protocol (subject_process.h); plug-ins are
// loaded in-process. certify, replay and explain run plug-ins and commands in an isolated worker
// instead (certify/isolated_backend.h, certify/isolated_subject.h).
#include <memory>
#include <string>

#include "mxconform/subject.h"

namespace mxconform {

// The subject `spec` names; for an empty spec, the fastest built-in this CPU runs. Throws Error
// naming the choices for an unknown name, the missing CPU features for a built-in this CPU cannot
// run, or the rule a plug-in breaks (no file, no mxconform_backend_v1, another ABI version, a
// struct_size too small, mask bits that name no value). A plug-in stays loaded while any copy of
// the pointer lives.
std::shared_ptr<const Subject> open_subject(const std::string& spec);

// "oracle, scalar, avx2, or a path to a plug-in shared library": for messages.
std::string subject_choices();

// "NAME VERSION: DESCRIPTION", how a plug-in or command describes itself (empty parts left out;
// the description alone without a name): raw, escaped by whoever prints it.
std::string subject_description(const std::string& name, const std::string& version, const std::string& description);

// True when `spec` names a plug-in library rather than a built-in.
bool names_a_plugin(const std::string& spec);

}  // namespace mxconform
