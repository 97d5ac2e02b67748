#include "mxconform/subject_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "mxconform/backend.h"
#include "mxconform/capabilities.h"
#include "mxconform/confinement.h"
#include "mxconform/error.h"
#include "mxconform/process_watch.h"

namespace mxconform {
namespace {

// The first bytes of `bytes` in hex, for a report.
std::string hex_preview(const std::uint8_t* bytes, std::size_t size) {
  constexpr std::size_t kShown = 32;
  std::string out;
  char text[4];
  for (std::size_t i = 0; i < std::min(size, kShown); ++i) {
    std::snprintf(text, sizeof text, "%02X", bytes[i]);
    out += (i ? " " : "") + std::string(text);
  }
  if (size > kShown) out += " ...";
  return out;
}

// The program execvp would run for `word`: itself when it has a '/', else the first executable
// file of that name on PATH; empty when there is none.
std::string find_program(const std::string& word) {
  if (word.find('/') != std::string::npos) return word;
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + word;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    start = end + 1;
  }
  return "";
}

// "0.5 s", "20 s": a timeout as the user gave it.
std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}

constexpr double kGraceSeconds = 0.5;     // for a process whose pipes closed to end by itself
constexpr double kQuietSeconds = 0.1;     // after bytes that are not a frame, for a frame to follow
constexpr std::size_t kStrayScanBytes = 1 << 16;  // bytes searched for a frame after a bad magic
constexpr double kStrayScanSeconds = 1;           // and for how long, however slowly they come

}  // namespace

bool names_a_command(std::string_view spec) { return spec.substr(0, kCommandPrefix.size()) == kCommandPrefix; }

const char* name(ExchangeEnd end) {
  switch (end) {
    case ExchangeEnd::kAnswered: return "answered";
    case ExchangeEnd::kDied: return "died";
    case ExchangeEnd::kTimedOut: return "timed out";
    case ExchangeEnd::kProtocolError: return "protocol error";
    case ExchangeEnd::kStrayOutput: return "stray output";
  }
  return "?";
}

std::vector<std::string> split_command(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\') {
      if (++i == command.size()) throw Error("command ends with a lone backslash: " + command);
      word += command[i];
    } else if (c == '\'') {
      const std::size_t close = command.find('\'', i + 1);
      if (close == std::string::npos) throw Error("unterminated ' in command: " + command);
      word += command.substr(i + 1, close - i - 1);
      i = close;
    } else if (c == '"') {
      for (++i;; ++i) {
        if (i == command.size()) throw Error("unterminated \" in command: " + command);
        if (command[i] == '"') break;
        if (command[i] == '\\' && i + 1 < command.size() && std::strchr("\"\\$`", command[i + 1]) != nullptr) ++i;
        word += command[i];
      }
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(word);
  if (words.empty()) throw Error("empty command after '" + std::string(kCommandPrefix) + "': name a program to run");
  return words;
}

SubjectProcess::SubjectProcess(const std::string& command) : argv_(split_command(command)) {
  program_path_ = find_program(argv_[0]);
  // A process that dies between calls must not take the harness with it on the next write.
  ::signal(SIGPIPE, SIG_IGN);
}

SubjectProcess::~SubjectProcess() { stop(); }

void SubjectProcess::start() {
  stop();
  if (program_path_.empty()) throw Error("cannot run '" + argv_[0] + "': not found on PATH");
  int in[2], out[2], err[2], status_pipe[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0 ||
      ::pipe2(status_pipe, O_CLOEXEC) != 0) {
    throw Error(std::string("cannot create pipes for the subject process: ") + std::strerror(errno));
  }
  std::vector<char*> args;
  for (std::string& word : argv_) args.push_back(word.data());
  args.push_back(nullptr);
  shield_harness();
  const pid_t harness = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(std::string("cannot fork the subject process: ") + std::strerror(errno));
  if (pid == 0) {
    // The child: own session and process group, dead with the harness, no core dumps; stdin and
    // stdout are the protocol's pipes, stderr the harness's capture; nothing else stays open. No
    // capabilities and a seccomp filter that keeps it from signalling the harness (confinement.h).
    ::setsid();
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    ::signal(SIGPIPE, SIG_DFL);
    confine_subject_process(harness, Confinement::kCommand);
    ::execv(program_path_.c_str(), args.data());
    const int code = errno;
    ssize_t ignored = ::write(status_pipe[1], &code, sizeof code);
    (void)ignored;
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  ::close(status_pipe[1]);
  pid_ = pid;
  stdin_fd_ = in[1];
  stdout_fd_ = out[0];
  stderr_fd_ = err[0];
  ++processes_started_;
  calls_answered_ = 0;
  int code = 0;
  ssize_t n;
  do n = ::read(status_pipe[0], &code, sizeof code); while (n < 0 && errno == EINTR);
  ::close(status_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof code)) {
    reap(0);
    throw Error("cannot run '" + program_path_ + "': " + std::strerror(code));
  }
  for (int fd : {stdin_fd_, stdout_fd_, stderr_fd_}) set_nonblocking(fd);
}

std::string SubjectProcess::reap(double grace_seconds) {
  if (pid_ <= 0) return "";
  // The end of requests before the grace period: a subject reading its stdin to the end exits at
  // once rather than when the period runs out.
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  stdin_fd_ = -1;
  const double deadline = monotonic_seconds() + grace_seconds;
  while (!process_has_ended(pid_) && monotonic_seconds() < deadline) ::usleep(5000);
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  ::kill(-pid_, SIGKILL);  // anything its group forked meanwhile
  drain_stderr();
  std::string how;
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* text = ::strsignal(sig);
    how = "signal " + std::to_string(sig) + " (" + (text ? text : "?") + ")";
  } else if (WIFEXITED(status)) {
    how = "exited with status " + std::to_string(WEXITSTATUS(status));
  }
  pid_ = -1;
  for (int* fd : {&stdin_fd_, &stdout_fd_, &stderr_fd_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
  return how;
}

void SubjectProcess::stop() {
  if (pid_ <= 0) return;
  reap(0.2);  // it closes stdin first, the end of requests: a well-behaved subject exits
}

void SubjectProcess::drain_stderr() {
  char chunk[65536];
  while (stderr_fd_ >= 0) {
    const ssize_t n = ::read(stderr_fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) {  // it closed its stderr: stop polling a pipe that would always be ready
      ::close(stderr_fd_);
      stderr_fd_ = -1;
    }
    if (n <= 0) break;
    const std::size_t room = kStderrKept - std::min(kStderrKept, stderr_captured_.size());
    const std::size_t kept = std::min(room, static_cast<std::size_t>(n));
    stderr_captured_.append(chunk, kept);
    stderr_dropped_ += static_cast<std::size_t>(n) - kept;
  }
}

std::string SubjectProcess::take_stderr() {
  drain_stderr();
  std::string out = std::move(stderr_captured_);
  if (stderr_dropped_ > 0) out += "... (" + std::to_string(stderr_dropped_) + " more bytes)";
  stderr_captured_.clear();
  stderr_dropped_ = 0;
  return out;
}

Exchange SubjectProcess::fail(ExchangeEnd end, std::string detail) {
  Exchange result;
  result.end = end;
  result.detail = std::move(detail);
  reap(0);
  return result;
}

Exchange SubjectProcess::exchange(const std::vector<std::uint8_t>& request, const std::uint8_t* tail,
                                  std::size_t tail_bytes, wire::FrameKind kind, std::uint64_t max_payload,
                                  double timeout_seconds) {
  // 1. Between calls nothing may have arrived on stdout, and the process must still be there.
  std::uint8_t stray[256];
  const ssize_t early = ::read(stdout_fd_, stray, sizeof stray);
  const bool handshake = kind == wire::FrameKind::kInfo;
  if (early > 0) {
    return fail(ExchangeEnd::kStrayOutput, std::string("wrote to stdout ") + (handshake ? "before the handshake" : "between calls") +
                                               " (outside a frame): " +
                                               std::string(reinterpret_cast<const char*>(stray), static_cast<std::size_t>(early)));
  }
  if (early == 0 || process_has_ended(pid_)) {
    Exchange gone;
    gone.end = ExchangeEnd::kDied;
    const std::string how = reap(kGraceSeconds);
    gone.detail = std::string("the subject process was gone before ") + (handshake ? "the handshake" : "this call") + " (" +
                  (how.empty() ? "it closed its stdout" : how) + ")" +
                  (handshake ? ""
                   : calls_answered_ == 0 ? ": it ended after its handshake, before its first call"
                                          : ": it ended after answering the previous call");
    gone.gone_before_call = true;
    return gone;
  }

  // 2. Write the request and read the answer in one loop: a subject that writes before it has
  // read everything must not deadlock the harness.
  const double deadline = monotonic_seconds() + timeout_seconds;
  std::size_t head_sent = 0, tail_sent = 0;
  std::vector<std::uint8_t> in;
  in.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(max_payload + wire::kHeaderBytes, 1u << 26)));
  std::uint64_t frame_bytes = 0;  // header + payload once the header is known
  double last_byte_at = 0;
  bool bad_magic = false;
  double bad_magic_at = 0;
  std::uint8_t chunk[65536];
  for (;;) {
    // 2a. What has arrived: a frame, the start of one, or bytes that are not one.
    if (bad_magic) {
      static const std::uint8_t kMagicBytes[4] = {'M', 'X', 'C', 'S'};
      const auto found = std::search(in.begin(), in.end(), std::begin(kMagicBytes), std::end(kMagicBytes));
      if (found != in.end()) {
        const auto before = static_cast<std::size_t>(found - in.begin());
        return fail(ExchangeEnd::kStrayOutput, "wrote " + std::to_string(before) + " bytes to stdout before its " +
                                                   wire::name(kind) + " frame: " +
                                                   std::string(in.begin(), in.begin() + std::min<std::size_t>(before, 256)));
      }
      const double now = monotonic_seconds();
      if (in.size() >= kStrayScanBytes || now - last_byte_at > kQuietSeconds || now - bad_magic_at > kStrayScanSeconds) {
        return fail(ExchangeEnd::kProtocolError, "not a frame: the answer starts with " + hex_preview(in.data(), in.size()) +
                                                     " (a frame starts with the magic 4D 58 43 53, \"MXCS\")");
      }
    } else if (frame_bytes == 0 && in.size() >= wire::kHeaderBytes) {
      const wire::FrameHeader header = wire::parse_header(in.data());
      if (header.magic != wire::kMagic) {
        bad_magic = true;
        bad_magic_at = monotonic_seconds();
        continue;
      }
      if (header.kind != static_cast<std::uint32_t>(kind)) {
        return fail(ExchangeEnd::kProtocolError, "frame of kind " + std::to_string(header.kind) + " where a " +
                                                     wire::name(kind) + " frame (kind " +
                                                     std::to_string(static_cast<std::uint32_t>(kind)) + ") was due");
      }
      if (header.length > max_payload) {
        return fail(ExchangeEnd::kProtocolError, std::string(wire::name(kind)) + " frame announces a payload of " +
                                                     std::to_string(header.length) + " bytes, more than the " +
                                                     std::to_string(max_payload) + " this call allows");
      }
      frame_bytes = wire::kHeaderBytes + header.length;
    }
    if (frame_bytes != 0 && in.size() >= frame_bytes) {
      if (in.size() > frame_bytes) {
        return fail(ExchangeEnd::kStrayOutput, "wrote " + std::to_string(in.size() - frame_bytes) +
                                                   " bytes to stdout after its " + wire::name(kind) + " frame: " +
                                                   std::string(in.begin() + static_cast<std::ptrdiff_t>(frame_bytes),
                                                               in.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(in.size(), frame_bytes + 256))));
      }
      Exchange answered;
      answered.payload.assign(in.begin() + wire::kHeaderBytes, in.end());
      if (!handshake) ++calls_answered_;
      return answered;
    }

    // 2b. Wait for the pipes, at most until the deadline.
    const bool sending = head_sent < request.size() || tail_sent < tail_bytes;
    const double now = monotonic_seconds();
    if (now >= deadline) {
      const std::string progress = sending ? "it had read " + std::to_string(head_sent + tail_sent) + " of the " +
                                                 std::to_string(request.size() + tail_bytes) + " request bytes"
                                           : "it had written " + std::to_string(in.size()) + " bytes of its answer";
      return fail(ExchangeEnd::kTimedOut, "no whole " + std::string(wire::name(kind)) + " frame within " +
                                              seconds_text(timeout_seconds) + " (" + progress + ")");
    }
    pollfd fds[3] = {{stdout_fd_, POLLIN, 0}, {stderr_fd_, POLLIN, 0}, {stdin_fd_, POLLOUT, 0}};
    const int count = sending ? 3 : 2;
    double slice = std::min(deadline - now, 0.05);  // wake up to see whether the process is still there
    if (bad_magic) slice = std::min(slice, kQuietSeconds);
    const int ready = ::poll(fds, static_cast<nfds_t>(count), static_cast<int>(std::ceil(slice * 1000)));
    if (ready < 0 && errno != EINTR) return fail(ExchangeEnd::kDied, std::string("poll failed: ") + std::strerror(errno));
    if (fds[1].revents != 0) drain_stderr();
    if (sending && fds[2].revents != 0) {
      const bool head = head_sent < request.size();
      const std::uint8_t* from = head ? request.data() + head_sent : tail + tail_sent;
      const std::size_t left = head ? request.size() - head_sent : tail_bytes - tail_sent;
      const ssize_t n = ::write(stdin_fd_, from, left);
      if (n > 0) {
        (head ? head_sent : tail_sent) += static_cast<std::size_t>(n);
      } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
        // It closed its stdin: keep reading, its last words or its end tell what happened.
        head_sent = request.size();
        tail_sent = tail_bytes;
      }
    }
    bool ended = false;
    if (fds[0].revents != 0) {
      const ssize_t n = ::read(stdout_fd_, chunk, sizeof chunk);
      if (n > 0) {
        in.insert(in.end(), chunk, chunk + n);
        last_byte_at = monotonic_seconds();
        continue;
      }
      ended = n == 0 || (errno != EAGAIN && errno != EINTR);
    }
    // No bytes came: the process may have ended with a child still holding its stdout.
    if (!ended) ended = process_has_ended(pid_);
    if (ended) {
      // Its last bytes may still be in the pipe.
      ssize_t n;
      while ((n = ::read(stdout_fd_, chunk, sizeof chunk)) > 0) in.insert(in.end(), chunk, chunk + n);
      if (bad_magic || (frame_bytes == 0 && in.size() >= wire::kHeaderBytes) || (frame_bytes != 0 && in.size() >= frame_bytes)) {
        last_byte_at = 0;  // judge what arrived; nothing more will
        if (frame_bytes == 0 || in.size() >= frame_bytes) continue;
      }
      const std::string how = reap(kGraceSeconds);
      const std::string where = in.empty() ? "before answering"
                                           : "mid-frame, after " + std::to_string(in.size()) + " of " +
                                                 (frame_bytes != 0 ? std::to_string(frame_bytes) : std::string("the")) +
                                                 " bytes of its " + wire::name(kind) + " frame";
      Exchange died;
      died.end = ExchangeEnd::kDied;
      died.detail = "the subject process ended " + where + " (" + (how.empty() ? "it closed its stdout" : how) + ")";
      return died;
    }
  }
}

wire::SubjectDescription SubjectProcess::start_and_describe(double timeout_seconds) {
  start();
  constexpr std::uint64_t kMaxInfoPayload = std::uint64_t{1} << 16;  // fixed part, appended fields, three texts
  const Exchange answer = exchange(wire::hello_frame(), nullptr, 0, wire::FrameKind::kInfo, kMaxInfoPayload, timeout_seconds);
  std::string shown = "cmd:";
  for (const std::string& word : argv_) shown += (shown.size() > 4 ? " " : "") + word;
  if (answer.end != ExchangeEnd::kAnswered) {
    const std::string err = take_stderr();
    throw SubjectLoadError(shown + ": no description from the subject (" + name(answer.end) + ": " + answer.detail + ")" +
                           (err.empty() ? "" : "; its stderr: " + err.substr(0, 1024)));
  }
  wire::SubjectDescription description;
  try {
    description = wire::parse_info(answer.payload);
  } catch (const wire::ProtocolError& error) {
    stop();
    throw SubjectLoadError(shown + ": its info frame breaks the protocol: " + error.what());
  }
  if (description.protocol_version != wire::kProtocolVersion) {
    stop();
    throw SubjectLoadError(shown + ": speaks subject protocol version " + std::to_string(description.protocol_version) +
                           "; this mxconform speaks version " + std::to_string(wire::kProtocolVersion) +
                           " (docs/subject-protocol.md)");
  }
  const std::string problem = description.capabilities.declaration_error();
  if (!problem.empty()) {
    stop();
    throw SubjectLoadError(shown + ": its info frame: " + problem);
  }
  take_stderr();
  return description;
}

Exchange SubjectProcess::quantize(const QuantizeConfig& config, const std::uint16_t* input, double timeout_seconds) {
  const Geometry g = geometry(config);
  const std::vector<std::uint8_t> head = wire::quantize_frame_head(config, g.data_bytes, g.scale_bytes);
  // Room for a wrong-size answer to be read and named as one; anything larger is not an answer.
  constexpr std::uint64_t kSlack = std::uint64_t{1} << 16;
  const std::uint64_t max_payload = wire::kResultFixedBytes + kSlack + wire::kMaxTextBytes + 2 * (g.data_bytes + g.scale_bytes);
  return exchange(head, reinterpret_cast<const std::uint8_t*>(input), 2 * config.partitions * config.free,
                  wire::FrameKind::kResult, max_payload, timeout_seconds);
}

}  // namespace mxconform
