#pragma once
// `mxconform serve --backend X`: serves any subject (a built-in, a plug-in, even a command) over
// the subject protocol on stdin and stdout, as a command subject does. For measuring what the
// protocol costs (certify --backend 'cmd:mxconform serve --backend ./libx.so' against certify
// --backend ./libx.so), and as the reference implementation of the subject side.
namespace mxconform::cli {

// argv[0] is "serve". Returns 0 at the end of its input, 1 for a frame that breaks the protocol
// or a subject that cannot be opened (the reason on stderr).
int run_serve(int argc, char** argv);

}  // namespace mxconform::cli
