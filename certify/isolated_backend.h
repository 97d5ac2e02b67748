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
#include "mxconform/quantize_config.h"

namespace mxconform::certify {

// What one call did. Every kind is reported as itself, never folded into another.
enum class Outcome {
  kPass,
  kWrongResult,           // ran to completion, some byte differs from the oracle
  kCrash,                 // the worker died on a signal or exited
  kHang,                  // no answer within the per-call timeout
  kWritePastEnd,          // wrote after the last byte of the data or scale buffer
  kWriteBeforeStart,      // wrote before the first byte of the data or scale buffer
  kWriteIntoInput,        // wrote into the read-only input
  kWriteUnnamedScaleRow,  // changed a physical scale row that no slot names
  kError,                 // returned MXC_STATUS_ERROR
  kUnsupported,           // declared or returned unsupported: its own outcome, never a failure
  kNondeterministic,      // failed, and the same call run again did something else
};
const char* name(Outcome outcome);
bool is_failure(Outcome outcome);

// The backend's description, as its describe() returned it.
struct BackendInfo {
  std::string name;
  std::string version;
  std::string description;
  std::uint32_t input_dtypes = 0;
  std::uint32_t output_dtypes = 0;
  std::uint32_t emax_modes = 0;
  std::uint32_t fp8_nan_policies = 0;
  std::uint32_t scale_layouts = 0;
  std::uint32_t fp4_high_parities = 0;
  std::uint64_t fp4_lane_strides = 0;

  // Empty when the configuration is declared; otherwise which declaration excludes it.
  std::string undeclared(const QuantizeConfig& config) const;
};

struct CallResult {
  Outcome outcome = Outcome::kPass;
  std::string detail;       // the signal, the error message, the first differing byte, ...
  std::vector<std::uint8_t> data;   // what the backend wrote (empty unless it returned)
  std::vector<std::uint8_t> scale;
};

// `spec` is a built-in implementation's name (see `mxconform backends`) or a path to a shared
// library exporting mxconform_backend_v1 (a path contains a '/').
class IsolatedBackend {
 public:
  IsolatedBackend(std::string spec, double timeout_seconds);
  ~IsolatedBackend();
  IsolatedBackend(const IsolatedBackend&) = delete;
  IsolatedBackend& operator=(const IsolatedBackend&) = delete;

  // Starts a worker and asks the backend to describe itself. Throws Error with the reason when
  // the library cannot be loaded, lacks the symbol, has another ABI version, or dies doing so.
  const BackendInfo& info();

  // Runs one quantize call and classifies it against the expected bytes. `expected_scale` is in
  // the configured layout; for the physical layout, rows no slot names are expected to stay 0.
  CallResult run(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                 const std::vector<std::uint8_t>& expected_data,
                 const std::vector<std::uint8_t>& expected_scale);

  const std::string& spec() const { return spec_; }
  std::size_t workers_started() const { return workers_started_; }

 private:
  void start_worker(std::size_t capacity);
  void stop_worker();

  std::string spec_;
  double timeout_seconds_;
  std::optional<BackendInfo> info_;
  pid_t pid_ = -1;
  int request_fd_ = -1;
  int response_fd_ = -1;
  int memfd_ = -1;
  void* shared_ = nullptr;
  std::size_t capacity_ = 0;  // bytes per buffer area
  std::size_t workers_started_ = 0;
};

// The mxc_backend table of a built-in implementation (name as in the registry), or nullptr.
const mxc_backend* builtin_backend(const std::string& name);

}  // namespace mxconform::certify
