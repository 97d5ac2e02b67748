#pragma once
// A plug-in or command subject run in certify's worker (WorkerBackend: a forked, confined process
// with guard pages and a per-call timeout, or the command's own process), as a Subject: for
// replay and explain, which must survive a subject that crashes or hangs. Its quantize() either
// fills the outputs or throws SubjectFailure (mxconform/subject.h) naming the outcome (crash,
// hang, write-past-end, refused, error, ...) and the detail; after a failure the next call gets a
// fresh worker.
#include <memory>
#include <string>

#include "worker_backend.h"
#include "mxconform/subject.h"

namespace mxconform::certify {

// A plug-in path or `cmd:...` in a worker with `limits`; a built-in (trusted, no worker) as
// open_subject opens it. Throws Error (LoadError among them) when the subject cannot be opened.
std::shared_ptr<const Subject> open_isolated_subject(const std::string& spec, WorkerLimits limits = {});

}  // namespace mxconform::certify
