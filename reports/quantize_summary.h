#pragma once
// What a quantize did, element by element, for the summary printed after `mxconform quantize`;
// and the files and shapes a dequantize read and wrote, printed after `mxconform dequantize`.
#include <cstddef>
#include <cstdint>
#include <string>

#include "mxconform/quantize_config.h"

namespace mxconform::reports {

struct QuantizeSummary {
  std::size_t elements = 0;
  std::size_t saturated = 0;  // |x| (Inf included) above the block's largest representable value
  std::size_t flushed = 0;    // finite non-zero inputs whose code is a zero
  std::size_t nan = 0;        // NaN inputs
  std::size_t inf = 0;        // Inf inputs
  int scale_min = 0;          // smallest and largest E8M0 byte written
  int scale_max = 0;
};

// Classifies every element from the input, the logical scales and the dequantized output
// (dequantized by the fastest built-in this CPU runs, whatever subject quantized).
QuantizeSummary summarize(const QuantizeConfig& config, const std::uint16_t* input,
                          const std::uint8_t* data, const std::uint8_t* scale);

// How many threads a quantize ran on, and why fewer than asked for ("" when as many).
struct ThreadUse {
  std::size_t threads = 1;
  std::string why_fewer;
};

// Multi-line, aligned text naming the backend, its threads, files, shape, configuration and
// counts. Paths are shown through safe_text.
std::string format_summary(const QuantizeConfig& config, const QuantizeSummary& summary,
                           const std::string& backend, const ThreadUse& threads, const std::string& input_path,
                           const std::string& data_path, const std::string& scale_path);

// The same for a dequantize: backend, the data and scale read, the float32 output, configuration.
std::string format_dequantize_summary(const QuantizeConfig& config, const std::string& backend,
                                      const std::string& data_path, const std::string& scale_path,
                                      const std::string& output_path);

}  // namespace mxconform::reports
