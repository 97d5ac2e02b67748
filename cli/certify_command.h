#pragma once
// `mxconform certify` and `mxconform merge`, each with its own argument parser (main() hands
// them argv from the subcommand on). Return the process exit status: 0 only when certified.
namespace mxconform::cli {

int run_certify(int argc, char** argv);
int run_merge(int argc, char** argv);

}  // namespace mxconform::cli
