#pragma once
// `mxconform export` and `mxconform grade`: offline bundles (docs/bundle-manifest.md), each with
// its own argument parser (main() hands them argv from the subcommand on). Return the process
// exit status (exit_status.h); an option, path or manifest refused before a verdict throws Error.
namespace mxconform::cli {

int run_export(int argc, char** argv);
int run_grade(int argc, char** argv);

}  // namespace mxconform::cli
