#include "mxconform/tensor_files.h"

#include <cstring>

#include "mxconform/error.h"

namespace mxconform {

std::string shape_text(const std::vector<std::size_t>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

InputTensor read_input_tensor(const std::string& path, const std::string& in_dtype) {
  const npy::Array array = npy::read(path);
  if (array.shape.size() != 2) {
    throw Error(path + ": expected a 2-D array [P, F], got shape " + shape_text(array.shape));
  }
  InputTensor tensor;
  if (array.type == npy::ElementType::kFloat16) {
    if (!in_dtype.empty() && parse_input_dtype(in_dtype) != InputDtype::kFloat16) {
      throw Error(path + ": holds <f2 (float16) values but --in-dtype is " + in_dtype);
    }
    tensor.dtype = InputDtype::kFloat16;
  } else if (array.type == npy::ElementType::kUint16) {
    if (in_dtype.empty()) throw Error(path + ": holds <u2 raw bits; say which with --in-dtype bfloat16|float16");
    tensor.dtype = parse_input_dtype(in_dtype);
  } else {
    throw Error(path + ": dtype " + std::string(npy::descr(array.type)) +
                " is not an input; expected <u2 (raw bfloat16/float16 bits) or <f2 (float16)");
  }
  tensor.partitions = array.shape[0];
  tensor.free = array.shape[1];
  tensor.bits.resize(array.bytes.size() / sizeof(std::uint16_t));
  std::memcpy(tensor.bits.data(), array.bytes.data(), tensor.bits.size() * sizeof(std::uint16_t));
  return tensor;
}

npy::Array empty_data_tensor(const QuantizeConfig& config) {
  const Geometry g = geometry(config);
  return {npy::ElementType::kUint8, {config.partitions, g.data_row_bytes}, std::vector<std::uint8_t>(g.data_bytes, 0)};
}

npy::Array empty_scale_tensor(const QuantizeConfig& config) {
  const Geometry g = geometry(config);
  return {npy::ElementType::kUint8, {g.scale_rows, g.block_cols}, std::vector<std::uint8_t>(g.scale_bytes, 0)};
}

OutputTensors read_output_tensors(const std::string& data_path, const std::string& scale_path,
                                  QuantizeConfig& config) {
  OutputTensors tensors{npy::read(data_path), npy::read(scale_path)};
  for (const auto* each : {&tensors.data, &tensors.scale}) {
    const std::string& path = each == &tensors.data ? data_path : scale_path;
    if (each->type != npy::ElementType::kUint8) {
      throw Error(path + ": expected |u1 bytes, got dtype " + std::string(npy::descr(each->type)));
    }
    if (each->shape.size() != 2) throw Error(path + ": expected a 2-D array, got shape " + shape_text(each->shape));
  }
  const npy::Array& data = tensors.data;
  const npy::Array& scale = tensors.scale;
  config.partitions = data.shape[0];
  config.free = is_fp4(config.output) ? data.shape[1] * 2 : data.shape[1];
  try {
    validate(config);
  } catch (const Error& error) {
    throw Error(data_path + ": shape " + shape_text(data.shape) + ": " + error.what());
  }
  const Geometry g = geometry(config);
  if (scale.shape[0] != g.scale_rows || scale.shape[1] != g.block_cols) {
    throw Error(scale_path + ": shape " + shape_text(scale.shape) + " does not match data " + shape_text(data.shape) +
                " for " + std::string(name(config.output)) + " with the " + std::string(name(config.scale_layout)) +
                " layout; expected (" + std::to_string(g.scale_rows) + ", " + std::to_string(g.block_cols) + ")");
  }
  return tensors;
}

}  // namespace mxconform
