#pragma once
// Input files read whole: only a regular file (opening never blocks on a FIFO), at most
// `max_bytes` bytes. Errors are mxconform::Error naming the path and the reason.
#include <cstddef>
#include <string>

namespace mxconform {

inline constexpr std::size_t kMaxInputFileBytes = std::size_t{1} << 30;

std::string read_input_file(const std::string& path, std::size_t max_bytes = kMaxInputFileBytes);

}  // namespace mxconform
