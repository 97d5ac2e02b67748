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
#include "worker_backend.h"

namespace mxconform::certify {

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
  std::size_t calls_answered_ = 0;  // by the running worker (its describe() is not a call)
};

// The mxc_backend table of a built-in implementation (name as in the registry), or nullptr.
const mxc_backend* builtin_backend(const std::string& name);

}  // namespace mxconform::certify
