#pragma once
// The .npy files of one MX quantize, in one place for every command: the input tensor it reads,
// and the data and scale tensors it writes (shapes from geometry(), docs/contract.md "Layouts").
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mxconform/npy.h"
#include "mxconform/quantize_config.h"

namespace mxconform {

// "(8, 64)": a shape as numpy prints it, for messages.
std::string shape_text(const std::vector<std::size_t>& shape);

// A 2-D input tensor [P, F]: raw element bits, partition-major.
struct InputTensor {
  InputDtype dtype = InputDtype::kBfloat16;
  std::size_t partitions = 0;
  std::size_t free = 0;
  std::vector<std::uint16_t> bits;
};

// Reads a 2-D input from `path`: <f2 float16 values (with `in_dtype` empty or "float16"), or <u2
// raw bits of `in_dtype` ("bfloat16" or "float16"). Throws Error naming the file and the rule
// (another rank, another dtype, <u2 without `in_dtype`, <f2 with in_dtype bfloat16).
InputTensor read_input_tensor(const std::string& path, const std::string& in_dtype);

// The two outputs of quantize for `config` (validated), zero-filled: data |u1
// [P, data_row_bytes] and scale |u1 [scale_rows, block_cols]. Rows no slot names stay 0.
npy::Array empty_data_tensor(const QuantizeConfig& config);
npy::Array empty_scale_tensor(const QuantizeConfig& config);

// Reads the data and scale files quantize wrote and completes `config`'s shape (P and F) from the
// data's; `config`'s dtypes and knobs must be set. Throws Error naming the file and the rule (not
// |u1, not 2-D, a shape the configuration rejects, a scale shape that does not match the data's).
struct OutputTensors {
  npy::Array data;
  npy::Array scale;
};
OutputTensors read_output_tensors(const std::string& data_path, const std::string& scale_path,
                                  QuantizeConfig& config);

}  // namespace mxconform
