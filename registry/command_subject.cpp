#include "command_subject.h"

#include <mutex>

#include "mxconform/backend.h"
#include "mxconform/error.h"
#include "mxconform/open_subject.h"
#include "mxconform/registry.h"
#include "mxconform/safe_text.h"
#include "mxconform/subject_process.h"

namespace mxconform {
namespace {

// Seconds a call may take: a floor for the process's start-up work, plus time per MiB of input
// for an interpreted quantizer on a large tensor.
double call_timeout_seconds(const QuantizeConfig& config) {
  constexpr double kFloorSeconds = 60;
  constexpr double kSecondsPerMiB = 2;
  return kFloorSeconds + kSecondsPerMiB * static_cast<double>(2 * config.partitions * config.free) / (1 << 20);
}
constexpr double kDescribeSeconds = 60;

class CommandSubject final : public Subject {
 public:
  explicit CommandSubject(const std::string& spec)
      : spec_(spec), process_(spec.substr(kCommandPrefix.size())) {
    try {
      description_record_ = process_.start_and_describe(kDescribeSeconds);
    } catch (const Error& error) {
      throw Error(safe_text(error.what(), 2048));
    }
    const wire::SubjectDescription& d = description_record_;
    description_ = subject_description(d.name, d.version, d.description);
    description_ = safe_text(description_, 512);
  }

  std::string_view name() const override { return spec_; }
  std::string_view description() const override { return description_; }
  CpuFeatures required_features() const override { return {}; }
  Capabilities capabilities() const override { return description_record_.capabilities; }

  // One call at a time: the process answers requests in order.
  void quantize(const QuantizeConfig& config, const std::uint16_t* input, std::uint8_t* data,
                std::uint8_t* scale) const override {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!process_.running()) process_.start_and_describe(kDescribeSeconds);
    const Exchange answer = process_.quantize(config, input, call_timeout_seconds(config));
    const std::string err = process_.take_stderr();
    const std::string stderr_note = err.empty() ? "" : "; its stderr: " + safe_multiline_text(err, 1024);
    if (answer.end != ExchangeEnd::kAnswered) {
      throw Error(spec_text() + ": " + mxconform::name(answer.end) + ": " + safe_text(answer.detail, 1024) + stderr_note);
    }
    wire::QuantizeResult result;
    try {
      result = wire::parse_result(answer.payload);
    } catch (const wire::ProtocolError& error) {
      process_.stop();
      throw Error(spec_text() + ": protocol error: " + safe_text(error.what(), 1024));
    }
    if (result.status == MXC_STATUS_UNSUPPORTED) {
      throw Error(spec_text() + ": declared, but returned unsupported: " + safe_text(result.message, 1024));
    }
    if (result.status == MXC_STATUS_ERROR) throw Error(spec_text() + ": error status: " + safe_text(result.message, 1024));
    if (result.status != MXC_STATUS_OK) throw Error(spec_text() + ": unknown status " + std::to_string(result.status));
    const Geometry g = geometry(config);
    if (result.data_bytes != g.data_bytes || result.scale_bytes != g.scale_bytes) {
      throw Error(spec_text() + ": wrong size: answered " + std::to_string(result.data_bytes) + " data and " +
                  std::to_string(result.scale_bytes) + " scale bytes; the configuration has " + std::to_string(g.data_bytes) +
                  " and " + std::to_string(g.scale_bytes));
    }
    std::copy(result.data, result.data + g.data_bytes, data);
    // The named rows only: the others belong to the caller (docs/contract.md step 7).
    const std::vector<bool> named = named_scale_rows(config);
    for (std::size_t row = 0; row < g.scale_rows; ++row) {
      if (!named[row]) continue;
      std::copy(result.scale + row * g.block_cols, result.scale + (row + 1) * g.block_cols, scale + row * g.block_cols);
    }
  }

  void dequantize(const QuantizeConfig&, const std::uint8_t*, const std::uint8_t*, float*) const override {
    throw Error(spec_text() + ": a command subject only quantizes (the protocol has no dequantize); dequantize with " +
                std::string(best_built_in().name()) + " or the oracle");
  }

 private:
  std::string spec_text() const { return safe_text(spec_, 256); }

  std::string spec_;
  std::string description_;
  wire::SubjectDescription description_record_;
  mutable std::mutex mutex_;
  mutable SubjectProcess process_;
};

}  // namespace

std::shared_ptr<const Subject> open_command_subject(const std::string& spec) {
  return std::make_shared<const CommandSubject>(spec);
}

}  // namespace mxconform
