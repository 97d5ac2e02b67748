// `mxconform certify` against hostile backends (tests/backends), through the CLI as a user runs
// it. Whatever a backend does, mxconform reaches a verdict (exit 2, never death by a signal, never
// a hang), writes its report naming the outcome, keeps its own output clean and bounded, leaves no
// process behind and writes nothing but the outputs it was asked for.
//
// Each run gets a fresh working directory, its stdout and stderr read through pipes until EOF,
// a wall-clock limit (past it the run is killed and the test fails as a hang), and the
// environment variable MXCONFORM_TEST_GRANDCHILD_PIDFILE naming a file outside that directory.
// That variable also marks every process of the run: one still alive after mxconform exited is
// an orphan, reported, then killed.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <pugixml.hpp>
#include <yaml-cpp/yaml.h>

#include "lingering_child.h"
#include "test_backends.h"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;
using Seconds = std::chrono::duration<double>;

// `mxconform certify` exit statuses.
constexpr int kCertified = 0;
constexpr int kNotCertified = 2;

constexpr const char* kReport = "report.yaml";
constexpr std::size_t kKeptBytes = std::size_t{4} << 20;  // of each output stream, for the checks
constexpr Seconds kEofGrace{2};        // after mxconform exits, its streams must close within this
constexpr Seconds kOrphanGrace{2};     // and every process of the run be gone within this
constexpr double kDefaultWallSeconds = 90;

// ---- Text checks. ----

// Whether `text` is well-formed UTF-8 (RFC 3629: no overlong forms, surrogates or code points
// above U+10FFFF).
bool is_utf8(std::string_view text) {
  static constexpr std::uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead < 0x80                   ? 1
                               : lead >= 0xC2 && lead <= 0xDF ? 2
                               : lead >= 0xE0 && lead <= 0xEF ? 3
                               : lead >= 0xF0 && lead <= 0xF4 ? 4
                                                              : 0;
    if (length == 0 || i + length > text.size()) return false;
    std::uint32_t code = length == 1 ? lead : lead & (0x7Fu >> length);
    for (std::size_t j = 1; j < length; ++j) {
      const auto next = static_cast<unsigned char>(text[i + j]);
      if ((next & 0xC0) != 0x80) return false;
      code = code << 6 | (next & 0x3F);
    }
    if (code < kSmallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    i += length;
  }
  return true;
}

// `text` with every byte outside printable ASCII and newline as \xNN: safe in a test log.
std::string printable(std::string_view text) {
  std::string out;
  for (const char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    if ((byte >= 0x20 && byte < 0x7F) || byte == '\n') {
      out += ch;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", byte);
      out += hex;
    }
  }
  return out;
}

std::string tail(std::string_view text, std::size_t bytes = 1500) {
  return printable(text.size() > bytes ? text.substr(text.size() - bytes) : text);
}

// No ESC byte and well-formed UTF-8; `what` names the text in the failure.
void expect_clean(std::string_view text, const std::string& what) {
  EXPECT_EQ(text.find('\x1b'), std::string_view::npos) << what << " holds an ESC byte: ..." << tail(text, 300);
  EXPECT_TRUE(is_utf8(text)) << what << " is not UTF-8: ..." << tail(text, 300);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string make_temp_dir(const char* stem) {
  std::string pattern = ::testing::TempDir() + stem + "XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << pattern << ": " << std::strerror(errno);
  return pattern;
}

std::set<std::string> directory_entries(const std::string& path) {
  std::set<std::string> names;
  if (DIR* dir = ::opendir(path.c_str())) {
    while (const dirent* entry = ::readdir(dir)) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") names.insert(name);
    }
    ::closedir(dir);
  }
  return names;
}

// ---- The processes of a run. ----

std::vector<pid_t> pids_in(const std::string& pid_file) {
  std::vector<pid_t> pids;
  std::istringstream listed(read_file(pid_file));
  for (long pid; listed >> pid;) pids.push_back(static_cast<pid_t>(pid));
  return pids;
}

// Whether process `pid` exists and is not a zombie.
bool running(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const auto paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return false;  // gone meanwhile
  const char state = stat[paren + 2];
  return state != 'Z' && state != 'X';
}

// Whether `pid`'s environment holds `marker` ("NAME=value"): yes, no, or unreadable.
std::optional<bool> carries(pid_t pid, const std::string& marker) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  if (!in) return std::nullopt;
  for (std::string entry; std::getline(in, entry, '\0');) {
    if (entry == marker) return true;
  }
  return false;
}

// The processes of the run still running kOrphanGrace after it exited: every pid in `pid_file`
// that runs and is not shown to be another process (its environment lacks `marker`), and every
// process in /proc whose environment holds `marker`.
std::vector<pid_t> survivors(const std::string& marker, const std::string& pid_file) {
  const std::vector<pid_t> listed = pids_in(pid_file);
  std::set<pid_t> scanned;
  if (DIR* dir = ::opendir("/proc")) {
    while (const dirent* entry = ::readdir(dir)) {
      const long pid = std::strtol(entry->d_name, nullptr, 10);
      if (pid > 0 && carries(static_cast<pid_t>(pid), marker).value_or(false)) scanned.insert(static_cast<pid_t>(pid));
    }
    ::closedir(dir);
  }
  const auto deadline = Clock::now() + kOrphanGrace;
  std::vector<pid_t> alive;
  do {
    alive.clear();
    for (const pid_t pid : listed) {
      if (running(pid) && carries(pid, marker).value_or(true)) alive.push_back(pid);
    }
    for (const pid_t pid : scanned) {
      if (running(pid) && carries(pid, marker).value_or(false) && !std::count(listed.begin(), listed.end(), pid)) {
        alive.push_back(pid);
      }
    }
    if (alive.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  } while (Clock::now() < deadline);
  return alive;
}

// ---- Running the CLI. ----

// What the reader of one of mxconform's output streams saw.
struct Stream {
  std::string kept;          // the first kKeptBytes
  std::size_t bytes = 0;     // how many it read in all
  bool escape_byte = false;  // an ESC anywhere, kept or not
  bool eof = false;

  void add(const char* data, std::size_t size) {
    bytes += size;
    escape_byte = escape_byte || std::memchr(data, '\x1b', size) != nullptr;
    kept.append(data, std::min(size, kKeptBytes - std::min(kKeptBytes, kept.size())));
  }
  // The kept bytes, less the last character when the cap may have cut it in two.
  std::string_view whole_sequences() const {
    const std::string_view text = kept;
    if (bytes == kept.size()) return text;
    std::size_t start = text.size();  // of the last character
    while (start > 0 && text.size() - start < 4 && (static_cast<unsigned char>(text[start - 1]) & 0xC0) == 0x80) --start;
    return text.substr(0, start > 0 ? start - 1 : 0);
  }
};

struct RunLimits {
  double wall_seconds = kDefaultWallSeconds;
  std::vector<std::pair<int, rlim_t>> resources;  // setrlimit(resource, {value, value}) for mxconform
};

// Directories removed with the last copy of the CliRun that made them, unless the test failed (then
// they are kept for a look).
struct TemporaryDirectories {
  std::vector<std::string> paths;
  ~TemporaryDirectories() {
    if (::testing::Test::HasFailure()) return;
    for (const std::string& path : paths) std::filesystem::remove_all(path);
  }
};

struct CliRun {
  std::vector<std::string> argv;
  std::shared_ptr<TemporaryDirectories> temporary = std::make_shared<TemporaryDirectories>();
  std::string dir;       // mxconform's working directory, fresh
  std::string pid_file;  // MXCONFORM_TEST_GRANDCHILD_PIDFILE, outside `dir`
  std::set<std::string> declared_outputs;  // what mxconform was asked to write into `dir`
  bool hung = false;     // still running at the wall-clock limit: killed
  int status = 0;        // from waitpid
  double seconds = 0;    // start to exit
  bool eof_at_exit = true;  // both streams closed within kEofGrace of the exit
  Stream out, err;
  std::vector<pid_t> orphans;  // processes of the run alive after it exited (killed since)
  bool library_unchanged = true;

  std::string command() const {
    std::string text;
    for (const std::string& arg : argv) text += (text.empty() ? "" : " ") + arg;
    return text;
  }
  std::string report_path() const { return dir + "/" + kReport; }
};

// Reads what the child writes to `out_fd` and `err_fd` until it has exited and both are at EOF,
// kEofGrace after the exit at the most; kills its process group at the wall-clock limit.
void watch(pid_t pid, int out_fd, int err_fd, const RunLimits& limits, CliRun& run) {
  const auto start = Clock::now();
  std::optional<Clock::time_point> exited;
  char buffer[1 << 16];
  for (;;) {
    if (!exited && ::waitpid(pid, &run.status, WNOHANG) == pid) exited = Clock::now();
    const auto now = Clock::now();
    if (exited && run.out.eof && run.err.eof) break;
    if (exited && now - *exited > kEofGrace) {
      run.eof_at_exit = false;
      break;
    }
    if (!exited && Seconds(now - start).count() > limits.wall_seconds) {
      run.hung = true;
      ::kill(-pid, SIGKILL);  // the group the child made for itself
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &run.status, 0);
      exited = Clock::now();
      break;
    }
    pollfd fds[2];
    Stream* streams[2];
    nfds_t count = 0;
    for (auto [fd, stream] : {std::pair{out_fd, &run.out}, std::pair{err_fd, &run.err}}) {
      if (stream->eof) continue;
      fds[count] = pollfd{fd, POLLIN, 0};
      streams[count++] = stream;
    }
    if (::poll(fds, count, 20) <= 0) continue;
    for (nfds_t i = 0; i < count; ++i) {
      if (fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) streams[i]->add(buffer, static_cast<std::size_t>(n));
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) streams[i]->eof = true;
    }
  }
  run.seconds = Seconds(*exited - start).count();
}

// Runs `mxconform certify --backend BACKEND --corpus CORPUS --report report.yaml FLAGS...`.
CliRun certify(const std::string& backend, const std::vector<std::string>& flags, const RunLimits& limits = {}) {
  CliRun run;
  run.dir = make_temp_dir("mxconform-hostile-run-");
  const std::string scratch = make_temp_dir("mxconform-hostile-pids-");
  run.temporary->paths = {run.dir, scratch};
  run.pid_file = scratch + "/pids";
  run.argv = {MXCONFORM_CLI_PATH, "certify", "--backend", backend, "--corpus", MXCONFORM_CORPUS_CASES_DIR,
              "--report", kReport};
  run.argv.insert(run.argv.end(), flags.begin(), flags.end());
  run.declared_outputs = {kReport};
  for (std::size_t i = 0; i + 1 < flags.size(); ++i) {
    if (flags[i] == "--junit" || flags[i] == "--emit-repro") run.declared_outputs.insert(flags[i + 1]);
  }
  const std::string library_before = read_file(backend);

  // Everything the child needs, built before fork: the environment without the variables that
  // would shard the campaign, plus the marker.
  const std::string marker = std::string(mxconform::test_backends::kGrandchildPidFileVariable) + "=" + run.pid_file;
  // The failure database goes into the run's scratch directory (beside the pid file, not among
  // the run's outputs), never into the user's cache.
  const std::string cache = std::filesystem::path(run.pid_file).parent_path().string() + "/cache";
  std::vector<std::string> environment = {marker, "XDG_CACHE_HOME=" + cache};
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text = *entry;
    if (text.rfind("GTEST_SHARD_INDEX=", 0) != 0 && text.rfind("GTEST_TOTAL_SHARDS=", 0) != 0 &&
        text.rfind("XDG_CACHE_HOME=", 0) != 0) {
      environment.emplace_back(text);
    }
  }
  std::vector<char*> argv, envp;
  for (std::string& arg : run.argv) argv.push_back(arg.data());
  for (std::string& entry : environment) envp.push_back(entry.data());
  argv.push_back(nullptr);
  envp.push_back(nullptr);

  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "pipe2: " << std::strerror(errno);
    return run;
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    for (const auto& [resource, value] : limits.resources) {
      const rlimit limit{value, value};
      if (::setrlimit(resource, &limit) != 0) ::_exit(125);
    }
    if (::chdir(run.dir.c_str()) != 0 || ::dup2(out[1], STDOUT_FILENO) < 0 || ::dup2(err[1], STDERR_FILENO) < 0) ::_exit(126);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  if (pid < 0) {
    ADD_FAILURE() << "fork: " << std::strerror(errno);
  } else {
    ::setpgid(pid, pid);
    watch(pid, out[0], err[0], limits, run);
  }
  ::close(out[0]);
  ::close(err[0]);

  run.orphans = survivors(marker, run.pid_file);
  for (const pid_t orphan : run.orphans) {
    if (carries(orphan, marker).value_or(false)) ::kill(orphan, SIGKILL);  // only what is surely ours
  }
  run.library_unchanged = read_file(backend) == library_before;
  return run;
}

// What every run must show, whatever the backend did: mxconform ended by itself with
// `exit_status`, closed its streams and left no process, wrote clean text and only its outputs,
// and did not touch the backend's file.
void expect_harness_held(const CliRun& run, int exit_status) {
  SCOPED_TRACE(run.command());
  const std::string stderr_tail = "\nstderr: ..." + tail(run.err.kept);
  EXPECT_FALSE(run.hung) << "hang: mxconform still ran after the wall-clock limit and was killed" << stderr_tail;
  if (!run.hung) {
    EXPECT_FALSE(WIFSIGNALED(run.status)) << "mxconform died of signal " << WTERMSIG(run.status) << stderr_tail;
    if (WIFEXITED(run.status)) {
      EXPECT_EQ(WEXITSTATUS(run.status), exit_status) << stderr_tail;
    }
  }
  EXPECT_TRUE(run.eof_at_exit) << "mxconform exited, but its stdout or stderr stayed open: a process it left holds them";
  EXPECT_TRUE(run.orphans.empty()) << run.orphans.size() << " process(es) of the run outlived mxconform, e.g. pid "
                                   << (run.orphans.empty() ? 0 : run.orphans.front());
  EXPECT_FALSE(run.out.escape_byte) << "mxconform's stdout holds an ESC byte";
  EXPECT_FALSE(run.err.escape_byte) << "mxconform's stderr holds an ESC byte";
  EXPECT_TRUE(is_utf8(run.out.whole_sequences())) << "mxconform's stdout is not UTF-8: ..." << tail(run.out.kept, 300);
  EXPECT_TRUE(is_utf8(run.err.whole_sequences())) << "mxconform's stderr is not UTF-8: ..." << tail(run.err.kept, 300);
  for (const std::string& name : directory_entries(run.dir)) {
    EXPECT_EQ(run.declared_outputs.count(name), 1u) << "mxconform wrote " << name << ", which it was not asked for";
    const std::string path = run.dir + "/" + name;
    if (run.declared_outputs.count(name) == 1 && std::filesystem::is_regular_file(path)) expect_clean(read_file(path), name);
  }
  EXPECT_TRUE(run.library_unchanged) << "the backend's library file changed";
}

// ---- Reading the report. ----

std::optional<YAML::Node> report_of(const CliRun& run) {
  if (!exists(run.report_path())) {
    ADD_FAILURE() << "no report written: " << run.command() << "\nstderr: ..." << tail(run.err.kept);
    return std::nullopt;
  }
  try {
    return YAML::LoadFile(run.report_path());
  } catch (const YAML::Exception& error) {
    ADD_FAILURE() << run.report_path() << " does not parse: " << error.what();
    return std::nullopt;
  }
}

// Cases per outcome over every results[] entry.
std::map<std::string, std::size_t> outcome_counts(const YAML::Node& report) {
  std::map<std::string, std::size_t> counts;
  for (const YAML::Node& result : report["results"]) {
    for (const auto& outcome : result["outcomes"]) counts[outcome.first.as<std::string>()] += outcome.second.as<std::size_t>();
  }
  return counts;
}

// The failures[] entries with `outcome`.
std::vector<YAML::Node> failures_with(const YAML::Node& report, const std::string& outcome) {
  std::vector<YAML::Node> found;
  for (const YAML::Node& failure : report["failures"]) {
    if (failure["outcome"] && failure["outcome"].as<std::string>() == outcome) found.push_back(failure);
  }
  return found;
}

std::string counts_text(const YAML::Node& report) {
  std::string text;
  for (const auto& [outcome, count] : outcome_counts(report)) text += " " + outcome + "=" + std::to_string(count);
  return text.empty() ? " (none)" : text;
}

// The report exists, says "not certified" and counts or lists `outcome`.
std::optional<YAML::Node> expect_outcome(const CliRun& run, const std::string& outcome) {
  std::optional<YAML::Node> report = report_of(run);
  if (!report) return report;
  EXPECT_EQ((*report)["verdict"].as<std::string>(""), "not certified");
  const std::size_t counted = outcome_counts(*report)[outcome];
  const std::vector<YAML::Node> listed = failures_with(*report, outcome);
  EXPECT_TRUE(counted > 0 || !listed.empty()) << "no " << outcome << " outcome; counted:" << counts_text(*report);
  for (const YAML::Node& failure : listed) {
    EXPECT_FALSE(failure["detail"].as<std::string>("").empty()) << outcome << " failure without a detail";
  }
  return report;
}

// ---- The tests. ----

TEST(CertifyHostile, InputWrittenAfterMprotectIsWriteIntoInput) {
  const CliRun run = certify(MXCONFORM_TEST_BACKEND_MPROTECT_INPUT_WRITE, {"--campaign", "corpus", "--timeout", "5"});
  expect_harness_held(run, kNotCertified);
  expect_outcome(run, "write-into-input");
}

TEST(CertifyHostile, ZerosInUnnamedScaleRowsAreWriteUnnamedScaleRow) {
  const CliRun run = certify(MXCONFORM_TEST_BACKEND_ZERO_UNNAMED_SCALE_ROWS,
                          {"--campaign", "corpus", "--campaign", "properties", "--timeout", "5"});
  expect_harness_held(run, kNotCertified);
  expect_outcome(run, "write-unnamed-scale-row");
}

// The gate's property campaign meets every block class on every declared configuration, so a bug
// in one class (zeros and one NaN) is found whatever the seed.
TEST(CertifyHostile, ZerosAndOneNanBlockBugIsFoundAtGateForEverySeed) {
  for (int seed = 1; seed <= 11; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const CliRun run = certify(MXCONFORM_TEST_BACKEND_ZERO_NAN_BLOCK_BUG,
                            {"--level", "gate", "--seed", std::to_string(seed), "--timeout", "5"});
    expect_harness_held(run, kNotCertified);
    expect_outcome(run, "wrong-result");
  }
}

// The gate's property campaign holds an E8M0 sweep (every E8M0 a finite block can get) and a
// tensor of more than 128 partitions, on every configuration and for every seed.
TEST(CertifyHostile, FaultsAtOneE8m0OrPast128PartitionsAreFoundAtGate) {
  for (int seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const CliRun scale = certify(MXCONFORM_TEST_BACKEND_ONE_SCALE_VALUE_BUG,
                                 {"--level", "gate", "--seed", std::to_string(seed), "--timeout", "5"});
    expect_harness_held(scale, kNotCertified);
    expect_outcome(scale, "wrong-result");
    const CliRun row = certify(MXCONFORM_TEST_BACKEND_UNNAMED_ROW_PAST_128,
                               {"--level", "gate", "--seed", std::to_string(seed), "--timeout", "5"});
    expect_harness_held(row, kNotCertified);
    expect_outcome(row, "write-unnamed-scale-row");
  }
}

TEST(CertifyHostile, FailureThatDoesNotRepeatIsNondeterministic) {
  const CliRun run = certify(MXCONFORM_TEST_BACKEND_FLAKY_EVERY_50TH, {"--campaign", "corpus", "--timeout", "5"});
  expect_harness_held(run, kNotCertified);
  expect_outcome(run, "nondeterministic");
}

TEST(CertifyHostile, BackendSignallingMxconformIsACrash) {
  const CliRun run = certify(MXCONFORM_TEST_BACKEND_KILL_PARENT, {"--campaign", "corpus", "--timeout", "5"});
  expect_harness_held(run, kNotCertified);
  expect_outcome(run, "crash");
}

// The kernel delivers SIGIO-style signals to a pipe's owner on the worker's behalf: the worker's
// seccomp filter must stop it at F_SETOWN, before the next request would kill mxconform.
TEST(CertifyHostile, BackendMakingMxconformItsPipesOwnerIsACrash) {
  const CliRun run = certify(MXCONFORM_TEST_BACKEND_SIGNAL_THROUGH_PIPE_OWNER, {"--campaign", "corpus", "--timeout", "5"});
  expect_harness_held(run, kNotCertified);
  expect_outcome(run, "crash");
}

// mxconform is non-dumpable while it runs workers and the worker holds no capability, so procfs
// refuses the worker mxconform's memory and file descriptors, even when both run as root. The
// backend is correct when it cannot reach them.
TEST(CertifyHostile, BackendCannotReachMxconformThroughProc) {
  const CliRun run = certify(MXCONFORM_TEST_BACKEND_REACH_HARNESS_THROUGH_PROC, {"--campaign", "corpus", "--timeout", "5"});
  expect_harness_held(run, kCertified);
  if (const auto report = report_of(run)) {
    EXPECT_EQ((*report)["verdict"].as<std::string>(""), "certified") << "counted:" << counts_text(*report);
  }
}

// The property campaign spends most of its time generating cases, between calls: that is when
// this worker goes away, and mxconform's next request meets a closed pipe.
TEST(CertifyHostile, WorkerGoneBetweenCallsIsACrashAndTheCampaignGoesOn) {
  const CliRun run = certify(MXCONFORM_TEST_BACKEND_EXIT_BETWEEN_CALLS, {"--campaign", "properties", "--timeout", "5"});
  expect_harness_held(run, kNotCertified);
  if (const auto report = expect_outcome(run, "crash")) {
    EXPECT_GT(outcome_counts(*report)["pass"], 0u) << "the campaign must go on after the worker is gone";
  }
}

// The grandchild keeps the worker's pipes and mxconform's stderr open for a minute: the crash
// must still be seen as a crash (not a hang), and the grandchild killed with the worker so that a
// reader of mxconform's output (`mxconform certify ... 2>&1 | cat`) sees EOF when it exits.
TEST(CertifyHostile, GrandchildHoldingTheWorkersPipesDiesWithTheCrash) {
  RunLimits limits;
  limits.wall_seconds = 60;
  const CliRun run = certify(MXCONFORM_TEST_BACKEND_FORK_GRANDCHILD, {"--campaign", "corpus", "--timeout", "2"}, limits);
  expect_harness_held(run, kNotCertified);
  EXPECT_LT(run.seconds, 30) << "each crash waited for the grandchild";
  EXPECT_FALSE(pids_in(run.pid_file).empty()) << "no grandchild recorded its pid: the test proves nothing";
  if (const auto report = expect_outcome(run, "crash")) {
    EXPECT_EQ(outcome_counts(*report)["hang"], 0u) << "a crash with a grandchild holding the pipes is not a hang";
  }
}

TEST(CertifyHostile, ChildLeavingTheSessionIsKilledAndACrash) {
  const CliRun run = certify(MXCONFORM_TEST_BACKEND_SETSID_ESCAPE, {"--campaign", "corpus", "--timeout", "2"});
  expect_harness_held(run, kNotCertified);
  EXPECT_FALSE(pids_in(run.pid_file).empty()) << "no child recorded its pid: the test proves nothing";
  expect_outcome(run, "crash");
}

// The worker's address-space limit (--memory-limit, default 8G) makes malloc fail long before
// 30 GiB, and the crash that follows ends each call quickly.
TEST(CertifyHostile, MemoryHogIsStoppedByTheAddressSpaceLimit) {
  RunLimits limits;
  limits.wall_seconds = 150;
  const CliRun run = certify(MXCONFORM_TEST_BACKEND_MEMORY_HOG, {"--campaign", "corpus", "--timeout", "5"}, limits);
  expect_harness_held(run, kNotCertified);
  EXPECT_LT(run.seconds, 120);
  expect_outcome(run, "crash");
}

// The backend is correct; only its stderr is hostile. mxconform captures it, caps it and
// escapes it: its own output stays small and holds no ESC.
TEST(CertifyHostile, StderrFloodIsCappedAndEscaped) {
  const CliRun run = certify(MXCONFORM_TEST_BACKEND_STDERR_FLOOD, {"--campaign", "corpus", "--timeout", "5"});
  expect_harness_held(run, kCertified);
  EXPECT_LT(run.out.bytes + run.err.bytes, std::size_t{1} << 20) << "stdout " << run.out.bytes << " B, stderr "
                                                                 << run.err.bytes << " B";
  if (const auto report = report_of(run)) {
    EXPECT_GT(outcome_counts(*report)["pass"], 0u) << counts_text(*report);
  }
}

TEST(CertifyHostile, HostileErrorMessageIsEscapedInEveryOutput) {
  const CliRun run = certify(MXCONFORM_TEST_BACKEND_BAD_MESSAGE,
                          {"--campaign", "corpus", "--timeout", "5", "--junit", "junit.xml", "--emit-repro", "repros"});
  expect_harness_held(run, kNotCertified);
  if (const auto report = expect_outcome(run, "error")) {
    const std::vector<YAML::Node> errors = failures_with(*report, "error");
    ASSERT_FALSE(errors.empty());
    const std::string detail = errors.front()["detail"].as<std::string>("");
    EXPECT_NE(detail.find("pwned"), std::string::npos) << "the message is dropped, not escaped: " << printable(detail);
    expect_clean(detail, "failures[].detail");
  }
  pugi::xml_document junit;
  const pugi::xml_parse_result parsed = junit.load_file((run.dir + "/junit.xml").c_str());
  EXPECT_TRUE(parsed) << "junit.xml is not well-formed XML: " << parsed.description() << " at byte " << parsed.offset;
  EXPECT_TRUE(junit.child("testsuites")) << "junit.xml has no <testsuites>";
}

// A backend that cannot be loaded or describes itself invalidly gets a verdict too: not
// certified, with the report's load_error naming the reason.
void expect_load_error(const char* backend, const std::vector<std::string>& reason_words, const RunLimits& limits = {}) {
  const CliRun run = certify(backend, {"--campaign", "corpus", "--timeout", "5"}, limits);
  expect_harness_held(run, kNotCertified);
  const auto report = report_of(run);
  if (!report) return;
  EXPECT_EQ((*report)["verdict"].as<std::string>(""), "not certified");
  const std::string load_error = (*report)["load_error"].as<std::string>("");
  bool named = false;
  for (const std::string& word : reason_words) named = named || load_error.find(word) != std::string::npos;
  EXPECT_TRUE(named) << "load_error does not name " << reason_words.front() << ": '" << printable(load_error) << "'";
  EXPECT_EQ(outcome_counts(*report)["pass"], 0u);
}

TEST(CertifyHostile, InfoStructSizeTooSmallIsALoadError) {
  expect_load_error(MXCONFORM_TEST_BACKEND_BAD_STRUCT_SIZE_INFO, {"struct_size"});
}

TEST(CertifyHostile, TableStructSizeZeroIsALoadError) {
  expect_load_error(MXCONFORM_TEST_BACKEND_BAD_STRUCT_SIZE_TABLE, {"struct_size"});
}

TEST(CertifyHostile, OutputDtypeMaskBitOfNoDtypeIsALoadError) {
  expect_load_error(MXCONFORM_TEST_BACKEND_BAD_MASK_BITS, {"output_dtypes"});
}

TEST(CertifyHostile, EmaxModeMaskBitOfNoModeIsALoadError) {
  expect_load_error(MXCONFORM_TEST_BACKEND_BAD_EMAX_MASK_BITS, {"emax_modes"});
}

// Core dumps allowed to mxconform: its worker still leaves none (it would land in the working
// directory, which must hold only the report).
TEST(CertifyHostile, CrashInAConstructorIsALoadErrorNamingTheSignal) {
  RunLimits limits;
  limits.resources = {{RLIMIT_CORE, RLIM_INFINITY}};
  expect_load_error(MXCONFORM_TEST_BACKEND_CONSTRUCTOR_CRASH, {"signal 11", "SIGSEGV"}, limits);
}

TEST(CertifyHostile, WrongAbiVersionIsALoadError) {
  expect_load_error(MXCONFORM_TEST_BACKEND_WRONG_ABI_VERSION, {"abi_version", "ABI version"});
}

TEST(CertifyHostile, LibraryWithoutTheEntryPointIsALoadError) {
  expect_load_error(MXCONFORM_TEST_BACKEND_NOT_A_BACKEND, {"mxconform_backend_v1"});
}

// Hundreds of crashes, each a fresh worker: mxconform must not run out of descriptors.
TEST(CertifyHostile, CrashOnNanAtGateWithFewDescriptorsStillReports) {
  RunLimits limits;
  limits.resources = {{RLIMIT_NOFILE, 256}};
  limits.wall_seconds = 240;
  const CliRun run = certify(MXCONFORM_TEST_BACKEND_CRASH_ON_NAN, {"--level", "gate", "--timeout", "5"}, limits);
  expect_harness_held(run, kNotCertified);
  EXPECT_EQ(run.err.kept.find("Too many open files"), std::string::npos) << tail(run.err.kept);
  if (const auto report = report_of(run)) {
    EXPECT_GT(outcome_counts(*report)["crash"], 0u) << counts_text(*report);
  }
}

}  // namespace
