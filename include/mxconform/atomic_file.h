#pragma once
// Output files: written whole or not at all, and only where a regular file is or nothing is. Every
// command that writes a file checks its paths with check_output_paths before any work and writes
// with write_file_atomically. Errors are mxconform::Error naming the path.
#include <string>
#include <string_view>
#include <vector>

namespace mxconform {

// Refuses, before any work starts: an output whose directory is missing; an output that exists
// and is not a regular file (a FIFO, a device, a socket, a directory, a symbolic link to one of
// those or to nothing), with or without `force`; an existing output without `force`; an output
// that is an input or lies inside an input directory (compared by device and inode when the file
// exists, else by canonical directory and name); two outputs naming the same file. Inputs that do
// not exist are compared by name only (reading them fails later).
void check_output_paths(const std::vector<std::string>& inputs, const std::vector<std::string>& outputs, bool force);

// Writes the concatenated `pieces` to `path` whole: a temporary file made by mkstemp in path's
// directory, written and synced, then renamed over `path` after checking again that `path` is
// absent, or (with `force`) a regular file or a link to one. Without `force` the rename never
// replaces a file (RENAME_NOREPLACE, or link() where the filesystem lacks it). The temporary file
// is removed on any failure, and an existing `path` is then unchanged. New files get mode 0666
// less the umask.
void write_file_atomically(const std::string& path, const std::vector<std::string_view>& pieces, bool force);
void write_file_atomically(const std::string& path, std::string_view bytes, bool force);

}  // namespace mxconform
