#pragma once
// `mxconform fingerprint --backend X`: which known contract (profile and knob values) a subject
// implements. Exit status 0 when exactly one known configuration matches every deciding case, a
// negative verdict (2) when none or several do, 1 when the backend cannot be loaded or an option is bad.
namespace mxconform::cli {

int run_fingerprint(int argc, char** argv);

}  // namespace mxconform::cli
