// Output files written whole, only over regular files. See include/mxconform/atomic_file.h.
#include "mxconform/atomic_file.h"

#include <fcntl.h>
#include <stdio.h>   // renameat2, RENAME_NOREPLACE (glibc 2.28 and later)
#include <stdlib.h>  // mkostemp, realpath
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "mxconform/error.h"

namespace mxconform {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw Error(path + ": " + what); }

std::string errno_text(int error) { return std::strerror(error); }

// What a file that is not a regular file is, for "<path>: is a FIFO".
std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

// realpath(3) as a string, or empty with errno set.
std::string real_path(const std::string& path) {
  const std::unique_ptr<char, decltype(&std::free)> resolved(::realpath(path.c_str(), nullptr), &std::free);
  return resolved ? std::string(resolved.get()) : std::string();
}

// An output path split into its directory (canonical, checked to be a directory) and its name.
struct OutputLocation {
  std::string directory;  // as written ("." for a bare name), for messages and the temporary file
  std::string name;
  std::string canonical;  // realpath(directory) + "/" + name
};

OutputLocation locate_output(const std::string& path) {
  if (path.empty()) throw Error("an output path is empty");
  const std::filesystem::path target(path);
  const std::string name = target.filename().string();
  if (name.empty() || name == "." || name == "..") fail(path, "names a directory, not a file");
  OutputLocation where;
  where.directory = target.has_parent_path() ? target.parent_path().string() : ".";
  where.name = name;
  const std::string directory = real_path(where.directory);
  struct stat info {};
  if (directory.empty() || ::stat(directory.c_str(), &info) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) fail(path, "output directory '" + where.directory + "' does not exist");
    fail(path, "cannot access output directory '" + where.directory + "': " + errno_text(errno));
  }
  if (!S_ISDIR(info.st_mode)) fail(path, "output directory '" + where.directory + "' is not a directory");
  where.canonical = directory + (directory.back() == '/' ? "" : "/") + name;
  return where;
}

// Whether the output `path` exists. Throws unless it is absent, a regular file or a symbolic link
// to a regular file; fills `target` with the file's stat when it exists.
bool existing_regular_output(const std::string& path, struct stat& target) {
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno == ENOENT) return false;
    fail(path, "cannot access: " + errno_text(errno));
  }
  if (!S_ISLNK(link.st_mode)) {
    if (!S_ISREG(link.st_mode)) fail(path, "is " + kind_of(link.st_mode) + "; outputs must be regular files");
    target = link;
    return true;
  }
  if (::stat(path.c_str(), &target) != 0) {
    if (errno == ENOENT) fail(path, "is a symbolic link to nothing; outputs must be regular files");
    fail(path, "is a symbolic link that cannot be followed: " + errno_text(errno));
  }
  if (!S_ISREG(target.st_mode)) {
    fail(path, "is a symbolic link to " + kind_of(target.st_mode) + "; outputs must be regular files");
  }
  return true;
}

// A file as compared by check_output_paths: its device and inode when it exists, and its
// canonical path (for a missing file: canonical directory and name).
struct FileIdentity {
  bool exists = false;
  bool directory = false;
  dev_t device = 0;
  ino_t inode = 0;
  std::string canonical;
};

bool same_file(const FileIdentity& left, const FileIdentity& right) {
  if (left.exists && right.exists) return left.device == right.device && left.inode == right.inode;
  return !left.canonical.empty() && left.canonical == right.canonical;
}

// Whether `file` lies below the directory `directory` (an existing input directory).
bool inside(const FileIdentity& file, const FileIdentity& directory) {
  if (!directory.directory || directory.canonical.empty()) return false;
  const std::string prefix = directory.canonical.back() == '/' ? directory.canonical : directory.canonical + "/";
  return file.canonical.compare(0, prefix.size(), prefix) == 0;
}

FileIdentity identify_input(const std::string& path) {
  FileIdentity id;
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    id.exists = true;
    id.directory = S_ISDIR(info.st_mode);
    id.device = info.st_dev;
    id.inode = info.st_ino;
  }
  if (id.directory) {
    id.canonical = real_path(path);
  } else {
    const std::filesystem::path file(path);
    const std::string directory = real_path(file.has_parent_path() ? file.parent_path().string() : ".");
    if (!directory.empty()) id.canonical = directory + (directory.back() == '/' ? "" : "/") + file.filename().string();
  }
  return id;
}

// A temporary file made by mkostemp, removed unless kept.
class TemporaryFile {
 public:
  TemporaryFile(const std::string& target, const std::string& directory, const std::string& name) {
    std::string pattern = directory + "/." + name + ".XXXXXX";
    fd_ = ::mkostemp(pattern.data(), O_CLOEXEC);
    if (fd_ < 0) fail(target, "cannot create a temporary file in '" + directory + "': " + errno_text(errno));
    path_ = pattern;
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!kept_) ::unlink(path_.c_str());
  }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // Closes now; returns 0, or -1 with errno set (close can report a lost write).
  int close() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd);
  }
  void keep() { kept_ = true; }

 private:
  int fd_ = -1;
  std::string path_;
  bool kept_ = false;
};

// The process's umask, read once (it is set and restored, so read it before any thread starts).
mode_t current_umask() {
  static const mode_t mask = [] {
    const mode_t value = ::umask(0);
    ::umask(value);
    return value;
  }();
  return mask;
}

void write_fully(const std::string& path, const TemporaryFile& temporary, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(temporary.fd(), bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, "cannot write temporary file '" + temporary.path() + "': " + errno_text(errno));
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

// Renames `from` to `to` unless `to` exists; where the filesystem cannot do that in one step,
// links and unlinks (link fails when the name exists). Returns 0, or -1 with errno set.
int rename_no_replace(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) return -1;
  if (::link(from.c_str(), to.c_str()) != 0) return -1;
  ::unlink(from.c_str());
  return 0;
}

}  // namespace

void check_output_paths(const std::vector<std::string>& inputs, const std::vector<std::string>& outputs, bool force) {
  std::vector<FileIdentity> input_ids;
  for (const std::string& input : inputs) input_ids.push_back(identify_input(input));
  std::vector<FileIdentity> output_ids;
  for (const std::string& output : outputs) {
    FileIdentity id;
    id.canonical = locate_output(output).canonical;
    struct stat info {};
    id.exists = existing_regular_output(output, info);
    id.device = info.st_dev;
    id.inode = info.st_ino;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (same_file(id, input_ids[i])) fail(output, "is also an input file; choose another output path");
      if (inside(id, input_ids[i])) {
        fail(output, "is inside the input directory '" + inputs[i] + "'; choose another output path");
      }
    }
    for (std::size_t j = 0; j < output_ids.size(); ++j) {
      if (same_file(id, output_ids[j])) fail(output, "named for two outputs (also as '" + outputs[j] + "')");
    }
    if (id.exists && !force) fail(output, "exists; pass --force to overwrite");
    output_ids.push_back(id);
  }
}

void write_file_atomically(const std::string& path, const std::vector<std::string_view>& pieces, bool force) {
  const OutputLocation where = locate_output(path);
  struct stat info {};
  if (existing_regular_output(path, info) && !force) fail(path, "exists; pass --force to overwrite");

  TemporaryFile temporary(path, where.directory, where.name);
  if (::fchmod(temporary.fd(), 0666 & ~current_umask()) != 0) {
    fail(path, "cannot set the mode of temporary file '" + temporary.path() + "': " + errno_text(errno));
  }
  for (const std::string_view piece : pieces) write_fully(path, temporary, piece);
  if (::fsync(temporary.fd()) != 0) {
    fail(path, "cannot sync temporary file '" + temporary.path() + "': " + errno_text(errno));
  }
  if (temporary.close() != 0) {
    fail(path, "cannot close temporary file '" + temporary.path() + "': " + errno_text(errno));
  }

  // Again, right before the rename: something may have appeared at `path` meanwhile.
  const bool exists = existing_regular_output(path, info);
  if (!force) {
    if (rename_no_replace(temporary.path(), path) != 0) {
      if (errno == EEXIST) fail(path, "exists; pass --force to overwrite");
      fail(path, "cannot rename temporary file '" + temporary.path() + "' to it: " + errno_text(errno));
    }
  } else if (::rename(temporary.path().c_str(), path.c_str()) != 0) {
    fail(path, "cannot rename temporary file '" + temporary.path() + "' " + (exists ? "over" : "to") +
                   " it: " + errno_text(errno));
  }
  temporary.keep();
}

void write_file_atomically(const std::string& path, std::string_view bytes, bool force) {
  write_file_atomically(path, std::vector<std::string_view>{bytes}, force);
}

}  // namespace mxconform
