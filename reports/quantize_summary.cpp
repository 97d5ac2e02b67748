#include "quantize_summary.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <vector>

#include "mxconform/safe_text.h"
#include "mxconform/scale_layout.h"
#include "mxconform/element_value.h"
#include "mxconform/registry.h"

namespace mxconform::reports {

QuantizeSummary summarize(const QuantizeConfig& config, const std::uint16_t* input,
                          const std::uint8_t* data, const std::uint8_t* scale) {
  const Geometry g = geometry(config);
  const std::size_t count = config.partitions * config.free;
  std::vector<float> values(count);
  // The fastest built-in decodes the neuron profile; the oracle (through the registry) every profile.
  const Subject& decoder = config.profile == ProfileId::kNeuron ? best_built_in() : *find_built_in("oracle");
  decoder.dequantize(config, data, scale, values.data());
  const double max_value = element_format(config.output).max_value;

  QuantizeSummary s;
  s.elements = count;
  s.scale_min = std::numeric_limits<int>::max();
  for (std::size_t row = 0; row < config.partitions; ++row) {
    const std::size_t group = row / g.block_height;
    const std::size_t scales_at = scale_row(config, group);
    for (std::size_t col = 0; col < config.free; ++col) {
      const std::size_t k = row * config.free + col;
      const double x = input_value(config.input, input[k]);
      const int e8m0 = scale[scales_at * g.block_cols + col / g.block_width];
      s.scale_min = std::min(s.scale_min, e8m0);
      s.scale_max = std::max(s.scale_max, e8m0);
      const double block_max = std::ldexp(max_value, e8m0 - E8M0::kBias);
      const double actual = values[k];
      if (std::isnan(x)) {
        ++s.nan;
        continue;
      }
      if (std::isinf(x)) ++s.inf;
      if (std::fabs(x) > block_max && std::fabs(actual) == block_max) ++s.saturated;
      if (std::isfinite(x) && x != 0.0 && actual == 0.0) ++s.flushed;
    }
  }
  return s;
}

namespace {

// The data and scale lines shared by both summaries: path, dtype, shape, layout.
void describe_outputs(std::ostringstream& text, const QuantizeConfig& config, const std::string& data_path,
                      const std::string& scale_path) {
  const Geometry g = geometry(config);
  const OutputDtypeInfo& out = info(config.output);
  text << "  data       " << safe_text(data_path) << "  " << out.name << " (id " << static_cast<int>(out.id)
       << ")  |u1 [" << config.partitions << ", " << g.data_row_bytes << "] bytes";
  if (out.elements_per_container > 1) {
    text << ", [" << config.partitions << ", " << g.containers_per_row << "] x" << out.elements_per_container
         << " containers";
  }
  text << "\n";
  text << "  scale      " << safe_text(scale_path) << "  e8m0 |u1 [" << g.scale_rows << ", " << g.block_cols << "] "
       << name(config.scale_layout) << " layout, " << g.block_rows * g.block_cols << " blocks\n";
}

}  // namespace

std::string format_summary(const QuantizeConfig& config, const QuantizeSummary& summary,
                           const std::string& backend, const ThreadUse& threads, const std::string& input_path,
                           const std::string& data_path, const std::string& scale_path) {
  std::ostringstream text;
  text << "mxconform quantize: backend " << safe_text(backend) << "\n";
  text << "  threads    " << threads.threads << (threads.why_fewer.empty() ? "" : " (" + threads.why_fewer + ")") << "\n";
  text << "  input      " << safe_text(input_path) << "  " << name(config.input) << " [" << config.partitions << ", "
       << config.free << "]\n";
  describe_outputs(text, config, data_path, scale_path);
  text << "  config     " << describe(config) << "\n";
  text << "  elements   " << summary.elements << ": saturated " << summary.saturated << ", flushed to zero "
       << summary.flushed << ", NaN " << summary.nan << ", Inf " << summary.inf << "\n";
  text << "  e8m0 range " << summary.scale_min << " .. " << summary.scale_max << " (2^" << summary.scale_min - E8M0::kBias
       << " .. 2^" << summary.scale_max - E8M0::kBias << ")\n";
  return text.str();
}

std::string format_dequantize_summary(const QuantizeConfig& config, const std::string& backend,
                                      const std::string& data_path, const std::string& scale_path,
                                      const std::string& output_path) {
  std::ostringstream text;
  text << "mxconform dequantize: backend " << safe_text(backend) << "\n";
  describe_outputs(text, config, data_path, scale_path);
  text << "  output     " << safe_text(output_path) << "  float32 <f4 [" << config.partitions << ", " << config.free
       << "]\n";
  text << "  config     " << describe(config) << "\n";
  return text.str();
}

}  // namespace mxconform::reports
