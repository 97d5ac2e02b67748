#include "bench_cases.h"

namespace mxconform::bench {

QuantizeConfig case_config(const BenchSize& size, InputDtype input, OutputDtype output) {
  QuantizeConfig config;
  config.input = input;
  config.output = output;
  config.partitions = size.partitions;
  config.free = size.free;
  validate(config);
  return config;
}

OutputDtype family_dtype(OutputFamily family) {
  for (const OutputCase& each : kOutputCases) {
    if (each.family == family) return each.dtype;
  }
  return OutputDtype::kFloat8E4m3fn;
}

Traffic traffic(const QuantizeConfig& config) {
  const Geometry g = geometry(config);
  return Traffic{config.partitions * config.free * sizeof(std::uint16_t),
                 g.data_bytes + g.block_rows * g.block_cols};
}

}  // namespace mxconform::bench
