#include "mxconform/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "mxconform/error.h"

namespace mxconform {

std::string read_input_file(const std::string& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO returns at once (and is refused below); no effect on regular files.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw Error(path + ": cannot open: " + std::strerror(errno));
  struct stat info {};
  std::string text;
  std::string problem;
  if (::fstat(fd, &info) != 0) {
    problem = std::string("cannot stat: ") + std::strerror(errno);
  } else if (!S_ISREG(info.st_mode)) {
    problem = "not a regular file";
  } else if (static_cast<std::size_t>(info.st_size) > max_bytes) {
    problem = std::to_string(info.st_size) + " bytes: larger than " + std::to_string(max_bytes);
  } else {
    text.resize(static_cast<std::size_t>(info.st_size));
    std::size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        problem = std::string("cannot read: ") + std::strerror(errno);
        break;
      }
      if (n == 0) break;  // the file shrank while it was read
      got += static_cast<std::size_t>(n);
    }
    text.resize(got);
  }
  ::close(fd);
  if (!problem.empty()) throw Error(path + ": " + problem);
  return text;
}

}  // namespace mxconform
