#pragma once
// A subject under certification, in a worker of the harness's making: what every kind of worker
// (a forked plug-in worker, IsolatedBackend; a command's own process, CommandBackend) answers,
// and what one call came to.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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
// interface certification drives. make_worker_backend picks the kind.
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

  // What the subject's answer says before its bytes are looked at: refused (it declared the
  // configuration, then returned MXC_STATUS_UNSUPPORTED) or error (any other status but OK, with
  // its message), set on `result` with true; false, and `result` untouched, for MXC_STATUS_OK.
  // `message` is the subject's own text, raw.
  static bool failed_status(std::uint32_t status, const std::string& message, CallResult& result);
  // Grades `result.data` and `result.scale` (the sizes the configuration has) against the expected
  // bytes with grade_call (call_grade.h), setting the outcome, site and detail; `unnamed_rows` is
  // what the scale rows no slot names must hold (scale_bytes long).
  static void grade(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                    const std::vector<std::uint8_t>& expected_data,
                    const std::vector<std::uint8_t>& expected_scale, const std::uint8_t* unnamed_rows,
                    CallResult& result);
  // Keeps the description a subject gave, as info() returns it from then on.
  const BackendInfo& keep_info(std::string name, std::string version, std::string description,
                               const Capabilities& capabilities);

  std::string spec_;
  WorkerLimits limits_;
  std::optional<BackendInfo> info_;  // set by info()
  std::string sandbox_;              // set by info()
};

// The worker kind `spec` names: CommandBackend (command_backend.h) for "cmd:...", IsolatedBackend
// (isolated_backend.h) for a built-in's name or a plug-in's path.
std::unique_ptr<WorkerBackend> make_worker_backend(const std::string& spec, WorkerLimits limits);

}  // namespace mxconform::certify
