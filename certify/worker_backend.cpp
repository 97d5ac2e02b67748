#include "worker_backend.h"

#include <cmath>

#include "call_grade.h"
#include "command_backend.h"
#include "isolated_backend.h"
#include "mxconform/backend.h"
#include "mxconform/subject_process.h"

namespace mxconform::certify {

WorkerBackend::WorkerBackend(std::string spec, WorkerLimits limits) : spec_(std::move(spec)), limits_(limits) {
  if (!std::isfinite(limits_.timeout_seconds) || limits_.timeout_seconds <= 0 || limits_.timeout_seconds > 1e6) {
    throw Error("timeout " + std::to_string(limits_.timeout_seconds) + " s: must be a finite number of seconds above 0");
  }
}

bool WorkerBackend::failed_status(std::uint32_t status, const std::string& message, CallResult& result) {
  if (status == MXC_STATUS_OK) return false;
  if (status == MXC_STATUS_UNSUPPORTED) {
    result.outcome = Outcome::kRefused;
    result.detail = "declared, but returned unsupported: " + message;
  } else {
    result.outcome = Outcome::kError;
    result.detail = status == MXC_STATUS_ERROR ? message : "unknown status " + std::to_string(status);
  }
  return true;
}

void WorkerBackend::grade(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                          const std::vector<std::uint8_t>& expected_data,
                          const std::vector<std::uint8_t>& expected_scale, const std::uint8_t* unnamed_rows,
                          CallResult& result) {
  const CallGrade grade = grade_call(config, input, expected_data, expected_scale, unnamed_rows, result.data, result.scale);
  result.outcome = grade.outcome;
  result.site = grade.site;
  result.detail = grade.detail;
}

const BackendInfo& WorkerBackend::keep_info(std::string name, std::string version, std::string description,
                                            const Capabilities& capabilities) {
  BackendInfo info;
  info.name = std::move(name);
  info.version = std::move(version);
  info.description = std::move(description);
  info.capabilities = capabilities;
  info_ = std::move(info);
  return *info_;
}

std::unique_ptr<WorkerBackend> make_worker_backend(const std::string& spec, WorkerLimits limits) {
  if (names_a_command(spec)) return std::make_unique<CommandBackend>(spec, limits);
  return std::make_unique<IsolatedBackend>(spec, limits);
}

}  // namespace mxconform::certify
