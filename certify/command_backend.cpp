#include "command_backend.h"

#include <sys/stat.h>

#include "mxconform/backend.h"
#include "mxconform/error.h"

namespace mxconform::certify {
namespace {

Outcome outcome_of(ExchangeEnd end) {
  switch (end) {
    case ExchangeEnd::kAnswered: return Outcome::kPass;
    case ExchangeEnd::kDied: return Outcome::kCrash;
    case ExchangeEnd::kTimedOut: return Outcome::kHang;
    case ExchangeEnd::kProtocolError: return Outcome::kProtocolError;
    case ExchangeEnd::kStrayOutput: return Outcome::kStrayOutput;
  }
  return Outcome::kCrash;
}

}  // namespace

CommandBackend::CommandBackend(std::string spec, WorkerLimits limits)
    : WorkerBackend(std::move(spec), limits), process_(spec_.substr(kCommandPrefix.size())) {}

std::vector<std::string> CommandBackend::files() const {
  std::vector<std::string> out = {process_.program_path()};
  for (std::size_t i = 1; i < process_.argv().size(); ++i) {
    struct stat st {};
    const std::string& word = process_.argv()[i];
    if (::stat(word.c_str(), &st) == 0 && S_ISREG(st.st_mode)) out.push_back(word);
  }
  return out;
}

const BackendInfo& CommandBackend::info() {
  if (info_) return *info_;
  wire::SubjectDescription description;
  try {
    description = process_.start_and_describe(limits_.timeout_seconds);
  } catch (const SubjectLoadError& error) {
    throw LoadError(error.what());
  }
  sandbox_ = "own session and process group, killed as a group; stdin and stdout are the subject protocol's pipes, "
             "stderr is captured; no capabilities, no_new_privs and a seccomp filter that kills it if it signals "
             "mxconform, its process group or every process; no memory limit (the command runs as the user)";
  return keep_info(description.name, description.version, description.description, description.capabilities);
}

CallResult CommandBackend::run(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                               const std::vector<std::uint8_t>& expected_data,
                               const std::vector<std::uint8_t>& expected_scale) {
  if (std::optional<CallResult> unsupported = undeclared_call(config)) return *unsupported;
  CallResult result;
  // After a failure the process is gone: a fresh one, which must describe itself as before.
  if (!process_.running()) {
    try {
      process_.start_and_describe(limits_.timeout_seconds);
    } catch (const Error& error) {
      result.outcome = Outcome::kCrash;
      result.detail = std::string("a fresh subject process failed to start: ") + error.what();
      result.site = "restart";
      return result;
    }
  }
  const Exchange answer = process_.quantize(config, input.data(), limits_.timeout_seconds);
  result.stderr_text = process_.take_stderr();
  if (answer.end != ExchangeEnd::kAnswered) {
    result.outcome = outcome_of(answer.end);
    result.detail = answer.detail;
    result.site = answer.end == ExchangeEnd::kTimedOut ? "" : answer.detail;
    result.gone_before_call = answer.gone_before_call;
    return result;
  }
  wire::QuantizeResult answered;
  try {
    answered = wire::parse_result(answer.payload);
  } catch (const wire::ProtocolError& error) {
    process_.stop();
    result.outcome = Outcome::kProtocolError;
    result.detail = error.what();
    result.site = result.detail;
    return result;
  }
  if (failed_status(answered.status, answered.message, result)) return result;
  if (answered.data_bytes != expected_data.size() || answered.scale_bytes != expected_scale.size()) {
    result.outcome = Outcome::kWrongSize;
    result.detail = "answered " + std::to_string(answered.data_bytes) + " data and " + std::to_string(answered.scale_bytes) +
                    " scale bytes; the configuration has " + std::to_string(expected_data.size()) + " and " +
                    std::to_string(expected_scale.size());
    result.site = result.detail;
    return result;
  }
  result.data.assign(answered.data, answered.data + answered.data_bytes);
  result.scale.assign(answered.scale, answered.scale + answered.scale_bytes);
  // The rows no slot names: the subject protocol has the subject leave them 0.
  const std::vector<std::uint8_t> unnamed_rows(result.scale.size(), 0);
  grade(config, input, expected_data, expected_scale, unnamed_rows.data(), result);
  return result;
}

}  // namespace mxconform::certify
