#pragma once
// `mxconform verify`: one quantized tensor produced elsewhere against the reference, with its own
// argument parser (main() hands it argv from the subcommand on). Returns kExitSuccess when every
// byte matches, kExitNegativeVerdict when not; a bad file or option throws Error.
namespace mxconform::cli {

int run_verify(int argc, char** argv);

}  // namespace mxconform::cli
