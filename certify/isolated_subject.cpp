#include "isolated_subject.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "mxconform/open_subject.h"
#include "mxconform/registry.h"
#include "mxconform/subject_process.h"
#include "worker_backend.h"

namespace mxconform::certify {
namespace {

class IsolatedSubject final : public Subject {
 public:
  IsolatedSubject(const std::string& spec, WorkerLimits limits)
      : spec_(spec), backend_(make_worker_backend(spec, limits)) {
    const BackendInfo& info = backend_->info();
    capabilities_ = info.capabilities;
    description_ = subject_description(info.name, info.version, info.description);
  }

  std::string_view name() const override { return spec_; }
  std::string_view description() const override { return description_; }
  CpuFeatures required_features() const override { return {}; }
  Capabilities capabilities() const override { return capabilities_; }

  // One call at a time: a worker answers requests in order.
  void quantize(const QuantizeConfig& config, const std::uint16_t* input, std::uint8_t* data,
                std::uint8_t* scale) const override {
    const Geometry g = geometry(config);
    const std::vector<std::uint16_t> in(input, input + config.partitions * config.free);
    // The caller's buffers stand in for the expected bytes: the grade is not used, only the
    // checks that need no oracle (the input, the canaries, the rows no slot names).
    const std::vector<std::uint8_t> before_data(data, data + g.data_bytes);
    const std::vector<std::uint8_t> before_scale(scale, scale + g.scale_bytes);
    CallResult result;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      result = backend_->run(config, in, before_data, before_scale);
    }
    if (result.outcome != Outcome::kPass && result.outcome != Outcome::kWrongResult) {
      std::string detail = spec_ + ": " + result.detail;
      if (!result.stderr_text.empty()) detail += "; its stderr: " + result.stderr_text;
      throw SubjectFailure(result.outcome, detail);
    }
    std::copy(result.data.begin(), result.data.end(), data);
    // The named rows only: the others belong to the caller (docs/contract.md step 7); the worker
    // has checked that the subject left them alone.
    const std::vector<bool> named = named_scale_rows(config);
    for (std::size_t row = 0; row < g.scale_rows; ++row) {
      if (!named[row]) continue;
      std::copy(result.scale.begin() + row * g.block_cols, result.scale.begin() + (row + 1) * g.block_cols,
                scale + row * g.block_cols);
    }
  }

  void dequantize(const QuantizeConfig&, const std::uint8_t*, const std::uint8_t*, float*) const override {
    throw Error(spec_ + ": a plug-in or command subject only quantizes (the ABI has no dequantize); dequantize with " +
                std::string(best_built_in().name()) + " or the oracle");
  }

 private:
  std::string spec_;
  std::string description_;
  Capabilities capabilities_;
  mutable std::mutex mutex_;
  std::unique_ptr<WorkerBackend> backend_;
};

}  // namespace

std::shared_ptr<const Subject> open_isolated_subject(const std::string& spec, WorkerLimits limits) {
  if (!names_a_plugin(spec) && !names_a_command(spec)) return open_subject(spec);
  return std::make_shared<const IsolatedSubject>(spec, limits);
}

}  // namespace mxconform::certify
