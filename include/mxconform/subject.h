#pragma once
// A subject: something that quantizes. The oracle (the reference), a built-in kernel or a
// plug-in backend loaded in-process (open_subject in subject.h turns `--backend NAME|PATH.so`
// into one). Each has a name, a one-line description, the CPU features it needs and what it
// supports, as data.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mxconform/capabilities.h"
#include "mxconform/cpu_features.h"
#include "mxconform/error.h"
#include "mxconform/outcome.h"
#include "mxconform/quantize_config.h"

namespace mxconform {

// A call that failed in a way that is an outcome of its own (a crash, a hang, a write outside
// its buffers, a refusal, ...): what a subject run in a worker process throws (the plug-ins and
// commands of replay and explain, certify/isolated_subject.h). what() is "OUTCOME: DETAIL", the
// detail raw (the subject's own bytes among them): whoever prints it escapes it.
class SubjectFailure : public Error {
 public:
  SubjectFailure(Outcome outcome, const std::string& detail)
      : Error(std::string(name(outcome)) + ": " + detail), outcome_(outcome) {}
  Outcome outcome() const { return outcome_; }

 private:
  Outcome outcome_;
};

class Subject {
 public:
  virtual ~Subject() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  virtual CpuFeatures required_features() const = 0;
  // What it supports: everything for the built-ins, the declared masks for a plug-in.
  virtual Capabilities capabilities() const;
  // True for the oracle, the reference every subject is compared with.
  virtual bool is_reference() const { return false; }
  // Empty when `config` is supported; otherwise the reason it is not ("not supported" is its
  // own outcome, never a pass or a fail). By default what capabilities() does not declare.
  virtual std::string unsupported_reason(const QuantizeConfig& config) const;

  // Quantizes P*F raw input elements (bfloat16 or float16 bits, partition-major).
  // Preconditions: validate(config) passed; data has geometry(config).data_bytes bytes and
  // scale geometry(config).scale_bytes; the input, data and scale buffers do not overlap. Writes every data byte and only the scale rows that a
  // slot names (physical layout) or every scale row (logical layout); never reads them.
  virtual void quantize(const QuantizeConfig& config, const std::uint16_t* input,
                        std::uint8_t* data, std::uint8_t* scale) const = 0;

  // Throws Error when the subject fails (a plug-in's error status, a configuration it turned
  // down after declaring it); SubjectFailure when it ran in a worker and the failure has an
  // outcome of its own.
  //
  // Dequantizes to P*F float32 values: decode(code) * 2^(e8m0 - 127), rounded to float32
  // (docs/contract.md, "Dequantize"). NaN codes give sign|0x7FC00000. Same buffer sizes as quantize.
  virtual void dequantize(const QuantizeConfig& config, const std::uint8_t* data,
                          const std::uint8_t* scale, float* output) const = 0;
};

}  // namespace mxconform
