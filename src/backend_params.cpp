#include "mxconform/backend_params.h"

#include <cstddef>
#include <cstdio>
#include <exception>
#include <string>

#include "mxconform/error.h"

namespace mxconform {

QuantizeConfig config_from_params(const mxc_quantize_params& params) {
  if (params.struct_size < MXC_QUANTIZE_PARAMS_V1_SIZE) throw Error("mxc_quantize_params: struct_size too small");
  QuantizeConfig config;
  switch (params.input_dtype) {
    case MXC_INPUT_BFLOAT16: config.input = InputDtype::kBfloat16; break;
    case MXC_INPUT_FLOAT16: config.input = InputDtype::kFloat16; break;
    default: throw Error("input_dtype " + std::to_string(params.input_dtype) + ": not an mxc_input_dtype");
  }
  bool known_output = false;
  for (const OutputDtypeInfo& dtype : output_dtypes()) {
    if (static_cast<std::uint32_t>(dtype.id) == params.output_dtype) {
      config.output = dtype.id;
      known_output = true;
    }
  }
  if (!known_output) throw Error("output_dtype " + std::to_string(params.output_dtype) + ": not a BIR output id");
  if (params.emax_mode > MXC_EMAX_MINUS_1) throw Error("emax_mode: not an mxc_emax_mode");
  if (params.fp8_nan > MXC_FP8_NAN_ZERO) throw Error("fp8_nan: not an mxc_fp8_nan");
  if (params.scale_layout > MXC_SCALE_LOGICAL) throw Error("scale_layout: not an mxc_scale_layout");
  config.emax_mode = params.emax_mode == MXC_EMAX ? EmaxMode::kEmax : EmaxMode::kEmaxMinus1;
  config.fp8_nan = params.fp8_nan == MXC_FP8_NAN_CANONICAL ? Fp8NanPolicy::kCanonical : Fp8NanPolicy::kZero;
  config.scale_layout = params.scale_layout == MXC_SCALE_PHYSICAL ? ScaleLayout::kPhysical : ScaleLayout::kLogical;
  config.fp4_lane_stride = params.fp4_lane_stride;
  config.fp4_high_parity = static_cast<int>(params.fp4_high_parity);
  config.partitions = static_cast<std::size_t>(params.partitions);
  config.free = static_cast<std::size_t>(params.free);
  if (params.struct_size >= offsetof(mxc_quantize_params, block_shape) + sizeof params.block_shape) {
    if (params.profile >= kProfileCount) throw Error("profile " + std::to_string(params.profile) + ": not an mxc_profile");
    if (params.block_shape >= kBlockShapeCount) {
      throw Error("block_shape " + std::to_string(params.block_shape) + ": not an mxc_block_shape");
    }
    config.profile = static_cast<ProfileId>(params.profile);
    config.block_shape = static_cast<BlockShape>(params.block_shape);
  }
  validate(config);
  return config;
}

mxc_quantize_params params_from_config(const QuantizeConfig& config) {
  mxc_quantize_params params{};
  params.struct_size = sizeof params;
  params.input_dtype = config.input == InputDtype::kBfloat16 ? MXC_INPUT_BFLOAT16 : MXC_INPUT_FLOAT16;
  params.output_dtype = static_cast<std::uint32_t>(config.output);
  params.emax_mode = config.emax_mode == EmaxMode::kEmax ? MXC_EMAX : MXC_EMAX_MINUS_1;
  params.fp8_nan = config.fp8_nan == Fp8NanPolicy::kCanonical ? MXC_FP8_NAN_CANONICAL : MXC_FP8_NAN_ZERO;
  params.fp4_lane_stride = config.fp4_lane_stride;
  params.fp4_high_parity = static_cast<std::uint32_t>(config.fp4_high_parity);
  params.scale_layout = config.scale_layout == ScaleLayout::kPhysical ? MXC_SCALE_PHYSICAL : MXC_SCALE_LOGICAL;
  params.partitions = config.partitions;
  params.free = config.free;
  params.profile = static_cast<std::uint32_t>(config.profile);
  params.block_shape = static_cast<std::uint32_t>(config.block_shape);
  return params;
}

int quantize_through_abi(const Subject& subject, const mxc_quantize_params* params, const std::uint16_t* input,
                         std::uint8_t* data, std::size_t data_size, std::uint8_t* scale, std::size_t scale_size,
                         char* message, std::size_t message_size) {
  const auto say = [&](const std::string& text) {
    if (message != nullptr && message_size > 0) std::snprintf(message, message_size, "%s", text.c_str());
  };
  try {
    if (params == nullptr) throw Error("params is NULL");
    const QuantizeConfig config = config_from_params(*params);
    const std::string unsupported = subject.unsupported_reason(config);
    if (!unsupported.empty()) {
      say(unsupported);
      return MXC_STATUS_UNSUPPORTED;
    }
    const Geometry g = geometry(config);
    if (data_size != g.data_bytes || scale_size != g.scale_bytes) {
      throw Error("buffer sizes " + std::to_string(data_size) + "/" + std::to_string(scale_size) + ", expected " +
                  std::to_string(g.data_bytes) + "/" + std::to_string(g.scale_bytes));
    }
    subject.quantize(config, input, data, scale);
    return MXC_STATUS_OK;
  } catch (const std::exception& error) {
    say(error.what());
    return MXC_STATUS_ERROR;
  }
}

}  // namespace mxconform
