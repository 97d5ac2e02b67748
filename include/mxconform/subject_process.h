#pragma once
// A subject that is a command: the process mxconform starts for `--backend 'cmd:COMMAND ARGS'`
// and talks to over its stdin and stdout in the subject protocol (subject_protocol.h,
// docs/subject-protocol.md). Whatever the process does, the caller gets an answer or a
// classified end within the deadline it gave: every read and write has a deadline, the process
// runs in a session and process group of its own, and it is killed with its whole group.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mxconform/quantize_config.h"
#include "mxconform/subject_protocol.h"

namespace mxconform {

// The prefix of --backend that names a command subject.
inline constexpr std::string_view kCommandPrefix = "cmd:";
bool names_a_command(std::string_view spec);

// The words of a command line, split as a POSIX shell splits them without expanding anything:
// blanks separate words; '...' quotes literally; "..." quotes with \" \\ \$ \` as escapes; a
// backslash outside quotes escapes the next character. No shell runs. Throws Error for an
// unterminated quote or a command with no words.
std::vector<std::string> split_command(const std::string& command);

// How one exchange with the subject process ended.
enum class ExchangeEnd {
  kAnswered,       // one whole frame of the expected kind arrived
  kDied,           // the process ended (or closed its stdout) before a whole frame
  kTimedOut,       // no whole frame before the deadline
  kProtocolError,  // the bytes are not a frame: bad magic and no frame after them, an unexpected
                   // kind, a length beyond what the request allows
  kStrayOutput,    // bytes on stdout outside a frame: before it, after it, or between calls
};
const char* name(ExchangeEnd end);

struct Exchange {
  ExchangeEnd end = ExchangeEnd::kAnswered;
  std::string detail;                 // how it died, what broke; may hold the subject's bytes: escape it
  bool gone_before_call = false;      // kDied: the process had ended before the request was sent
  std::vector<std::uint8_t> payload;  // kAnswered: the frame's payload
};

// A command subject that could not be started as one (see start_and_describe).
class SubjectLoadError : public Error {
 public:
  using Error::Error;
};

class SubjectProcess {
 public:
  // `command`: the text after "cmd:". Splits it (split_command) and throws Error when it cannot.
  explicit SubjectProcess(const std::string& command);
  ~SubjectProcess();
  SubjectProcess(const SubjectProcess&) = delete;
  SubjectProcess& operator=(const SubjectProcess&) = delete;

  // Starts a fresh process (ending any previous one) and sends the hello frame. Throws Error
  // when the program cannot be run (not found, not executable), naming it and the reason.
  void start();
  // Ends the process: closes its stdin, gives it a moment to exit, then kills its process group.
  void stop();
  bool running() const { return pid_ > 0; }
  std::size_t processes_started() const { return processes_started_; }

  // Sends `request` (when not empty) and reads one frame of kind `kind`, whose payload may be at
  // most `max_payload` bytes, all before `timeout_seconds` have passed. On any end but kAnswered
  // the process is stopped (the next call starts a fresh one).
  Exchange exchange(const std::vector<std::uint8_t>& request, const std::uint8_t* tail, std::size_t tail_bytes,
                    wire::FrameKind kind, std::uint64_t max_payload, double timeout_seconds);

  // Starts a fresh process and reads its description (the hello / info handshake). Throws
  // SubjectLoadError naming the command when the process dies, hangs or breaks the protocol
  // doing so, speaks another protocol version, or declares mask bits that name no value; Error
  // when the program cannot be run.
  wire::SubjectDescription start_and_describe(double timeout_seconds);

  // One quantize call: `input` holds P*F 16-bit patterns of `config`. On kAnswered the payload
  // is a result record for wire::parse_result; its sizes are not checked here.
  Exchange quantize(const QuantizeConfig& config, const std::uint16_t* input, double timeout_seconds);

  // What the process wrote to stderr since the last call of take_stderr: raw bytes, at most
  // kStderrKept of them, then how many more were dropped.
  std::string take_stderr();

  const std::vector<std::string>& argv() const { return argv_; }
  // The program the command runs, as found on PATH (or as given when it contains a '/').
  const std::string& program_path() const { return program_path_; }

  static constexpr std::size_t kStderrKept = 4096;

 private:
  void drain_stderr();
  // Waits up to `grace_seconds` for the process to end, kills its group, reaps it, and says how
  // it ended ("exited with status 3", "signal 9 (Killed)").
  std::string reap(double grace_seconds);
  Exchange fail(ExchangeEnd end, std::string detail);

  std::vector<std::string> argv_;
  std::string program_path_;
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  std::string stderr_captured_;
  std::size_t stderr_dropped_ = 0;
  std::size_t processes_started_ = 0;
  std::size_t calls_answered_ = 0;  // by the running process, past its handshake
};

}  // namespace mxconform
