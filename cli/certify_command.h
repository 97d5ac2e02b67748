#pragma once
// `mxconform certify` and `mxconform merge`, each with its own argument parser (main() hands
// them argv from the subcommand on). Return the process exit status (exit_status.h): success when
// certified, a negative verdict when not; an option or path refused before any work throws Error.
namespace mxconform::cli {

int run_certify(int argc, char** argv);
int run_merge(int argc, char** argv);

}  // namespace mxconform::cli
