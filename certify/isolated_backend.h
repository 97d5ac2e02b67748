#pragma once
// A backend under test, run in a worker process of its own: the harness survives whatever the
// backend does, and says what it did. Built-in implementations and plug-in shared libraries go
// through the same C ABI (include/mxconform/backend.h) and the same worker.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mxconform/backend.h"
#include "mxconform/capabilities.h"
#include "mxconform/error.h"
#include "mxconform/outcome.h"
#include "mxconform/quantize_config.h"

namespace mxconform::certify {

// What one call did: the one outcome type (mxconform/outcome.h), named here as certify always has.
using mxconform::Outcome;
using mxconform::is_failure;
using mxconform::name;

// The backend's description, as its describe() returned it.
struct BackendInfo {
  std::string name;
  std::string version;
  std::string description;
  Capabilities capabilities;

  // Empty when the configuration is declared; otherwise which declaration excludes it.
  std::string undeclared(const QuantizeConfig& config) const { return capabilities.undeclared(config); }
};

struct CallResult {
  Outcome outcome = Outcome::kPass;
  std::string detail;       // the signal, the error message, the first differing byte, ...: raw
                            // bytes (the backend's own among them), escaped by whoever prints them
  // Where it went wrong, without the values that vary from call to call (the fill bytes, fault
  // addresses): the same failure twice has the same outcome and site.
  std::string site;
  // The worker had ended before this call was sent (after answering the previous one): a crash
  // of the backend, though not of this case, so rerunning the case says nothing.
  bool gone_before_call = false;
  std::vector<std::uint8_t> data;   // what the backend wrote (empty unless it returned)
  std::vector<std::uint8_t> scale;
  std::string stderr_text;  // what the backend wrote to stderr during the call: raw, capped
};

// The backend could not be loaded or described itself in a way the ABI does not allow (no
// symbol, another ABI version, a struct_size too small, mask bits for values that do not exist,
// a crash or hang while loading). A verdict on the backend, not a usage error: certify reports it
// as not certified.
class LoadError : public Error {
 public:
  using Error::Error;
};

// Limits of a worker process.
struct WorkerLimits {
  double timeout_seconds = 20;  // per call (and for loading); finite, > 0
  std::uint64_t memory_limit_bytes = std::uint64_t{8} << 30;  // RLIMIT_AS; 0: none
};

// A subject under test in a worker of the harness's making, whatever kind of subject it is: the
// interface certification drives. make_worker_backend (command_backend.h) picks the kind.
class WorkerBackend {
 public:
  virtual ~WorkerBackend() = default;
  // The subject's description; throws LoadError (a verdict) or Error (a usage error).
  virtual const BackendInfo& info() = 0;
  // How the worker is confined, known after info().
  const std::string& sandbox() const { return sandbox_; }
  // One quantize call, classified against the expected bytes (see IsolatedBackend::run).
  virtual CallResult run(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                         const std::vector<std::uint8_t>& expected_data,
                         const std::vector<std::uint8_t>& expected_scale) = 0;
  // The subject as --backend named it.
  const std::string& spec() const { return spec_; }
  virtual std::size_t workers_started() const = 0;

 protected:
  // Throws Error unless limits.timeout_seconds is a finite number of seconds in (0, 1e6].
  WorkerBackend(std::string spec, WorkerLimits limits);

  // The not-supported result for a configuration the subject does not declare, before any call.
  std::optional<CallResult> undeclared_call(const QuantizeConfig& config) {
    const std::string undeclared = info().undeclared(config);
    if (undeclared.empty()) return std::nullopt;
    CallResult result;
    result.outcome = Outcome::kUnsupported;
    result.detail = "not declared: " + undeclared;
    return result;
  }

  std::string spec_;
  WorkerLimits limits_;
  std::optional<BackendInfo> info_;  // set by info()
  std::string sandbox_;              // set by info()
};

// `spec` is a built-in implementation's name (see `mxconform backends`) or a path to a shared
// library exporting mxconform_backend_v1 (a path contains a '/').
//
// The worker is a forked process in a session and process group of its own, with no core dumps,
// an address-space limit, stdin and stdout on /dev/null and stderr on a pipe the harness drains
// (capped). A seccomp filter kills it when it signals or traces another process, or leaves its
// process group. Whatever the worker does, the harness survives: SIGPIPE is ignored (the
// constructor sets it to SIG_IGN for the whole process), every read and write has a deadline,
// and a worker that dies, hangs or breaks the protocol is killed with its whole process group.
class IsolatedBackend final : public WorkerBackend {
 public:
  IsolatedBackend(std::string spec, WorkerLimits limits);
  ~IsolatedBackend();
  IsolatedBackend(const IsolatedBackend&) = delete;
  IsolatedBackend& operator=(const IsolatedBackend&) = delete;

  // Starts a worker and asks the backend to describe itself. Throws LoadError with the reason
  // when the library cannot be loaded, lacks the symbol, has another ABI version, declares
  // struct sizes or mask bits the ABI does not allow, or dies or hangs doing so; Error when a
  // library path names no file.
  const BackendInfo& info() override;

  // Runs one quantize call and classifies it against the expected bytes. `expected_scale` is in
  // the configured layout; for the physical layout, its rows no slot names are ignored: those
  // rows, like the data and scale bytes and the canaries before each buffer, are filled with
  // bytes that vary from call to call, and must keep them. The input is compared after the call.
  CallResult run(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                 const std::vector<std::uint8_t>& expected_data,
                 const std::vector<std::uint8_t>& expected_scale) override;

  std::size_t workers_started() const override { return workers_started_; }

 private:
  enum class Wait { kDone, kDied, kTimedOut, kBroken };
  void start_worker(std::size_t capacity);
  void stop_worker();
  // Reads or writes exactly `size` bytes before the deadline, draining the worker's stderr
  // meanwhile; kDied when the worker is gone, kBroken on EOF or a pipe error.
  Wait transfer(bool to_worker, void* buffer, std::size_t size, double seconds);
  void drain_stderr();
  // The worker is gone (or must go): waits up to `grace_seconds` for it to end by itself, kills
  // its process group, reaps it, and says how it ended.
  std::string reap_worker(double grace_seconds);

  pid_t pid_ = -1;
  int request_fd_ = -1;
  int response_fd_ = -1;
  int stderr_fd_ = -1;
  int pid_fd_ = -1;
  int memfd_ = -1;
  std::uint64_t sequence_ = 0;  // calls made: numbers each request, seeds each call's fill
  std::string stderr_captured_;
  std::size_t stderr_dropped_ = 0;
  void* shared_ = nullptr;
  std::size_t capacity_ = 0;  // bytes per buffer area
  std::size_t workers_started_ = 0;
};

// The mxc_backend table of a built-in implementation (name as in the registry), or nullptr.
const mxc_backend* builtin_backend(const std::string& name);

}  // namespace mxconform::certify
