#pragma once
// An implementation of the QuantizeMx path: the oracle, a built-in kernel or a plug-in. Each
// has a name, a one-line description, the CPU features it needs and what it supports.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mxconform/cpu_features.h"
#include "mxconform/quantize_config.h"

namespace mxconform {

class Implementation {
 public:
  virtual ~Implementation() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  virtual CpuFeatures required_features() const = 0;
  // Empty when `config` is supported; otherwise the reason it is not ("not supported" is its
  // own outcome, never a pass or a fail).
  virtual std::string unsupported_reason(const QuantizeConfig& config) const;

  // Quantizes P*F raw input elements (bfloat16 or float16 bits, partition-major).
  // Preconditions: validate(config) passed; data has geometry(config).data_bytes bytes and
  // scale geometry(config).scale_bytes. Writes every data byte and only the scale rows that a
  // slot names (physical layout) or every scale row (logical layout); never reads them.
  virtual void quantize(const QuantizeConfig& config, const std::uint16_t* input,
                        std::uint8_t* data, std::uint8_t* scale) const = 0;

  // Dequantizes to P*F float32 values: decode(code) * 2^(e8m0 - 127), rounded to float32
  // (decisions.md, "Dequantize"). NaN codes give sign|0x7FC00000. Same buffer sizes as quantize.
  virtual void dequantize(const QuantizeConfig& config, const std::uint8_t* data,
                          const std::uint8_t* scale, float* output) const = 0;
};

}  // namespace mxconform
