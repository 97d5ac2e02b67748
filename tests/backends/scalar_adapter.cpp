#include "scalar_adapter.h"

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <fstream>
#include <string>

#include "mxconform/backend_params.h"
#include "mxconform/error.h"
#include "mxconform/formats.h"
#include "mxconform/quantize_config.h"
#include "scalar_backend.h"
#include "widen.h"

namespace mxconform::test_backends {

std::size_t QuantizeCall::elements() const {
  return static_cast<std::size_t>(params->partitions * params->free);
}

std::uint32_t QuantizeCall::widened(std::size_t k) const {
  return params->input_dtype == MXC_INPUT_FLOAT16 ? impl::widen_f16(input[k]) : impl::widen_bf16(input[k]);
}

bool QuantizeCall::is_nan(std::size_t k) const { return (widened(k) & Float32::kMagnitudeMask) > Float32::kInfCode; }

bool QuantizeCall::is_zero(std::size_t k) const { return (widened(k) & Float32::kMagnitudeMask) == 0; }

std::size_t QuantizeCall::blocks() const { return elements() / kBlockSize; }

std::size_t QuantizeCall::block_of(std::size_t k) const {
  const std::size_t free = static_cast<std::size_t>(params->free);
  return k / free / kBlockRows * (free / kBlockCols) + k % free / kBlockCols;
}

std::size_t QuantizeCall::block_element(std::size_t b, std::size_t i) const {
  const std::size_t free = static_cast<std::size_t>(params->free);
  const std::size_t block_cols = free / kBlockCols;
  return (b / block_cols * kBlockRows + i / kBlockCols) * free + b % block_cols * kBlockCols + i % kBlockCols;
}

std::uint8_t& QuantizeCall::block_scale(std::size_t b) const {
  const std::size_t block_cols = static_cast<std::size_t>(params->free) / kBlockCols;
  return scale[scale_row(config_from_params(*params), b / block_cols) * block_cols + b % block_cols];
}

int QuantizeCall::fail(const char* reason) const {
  if (message != nullptr && message_size > 0) std::snprintf(message, message_size, "%s", reason);
  return MXC_STATUS_ERROR;
}

int quantize_with_scalar(const QuantizeCall& call) {
  return quantize_through_abi(impl::scalar_backend(), call.params, call.input, call.data, call.data_size, call.scale,
                              call.scale_size, call.message, call.message_size);
}

mxc_backend_info bfloat16_e4m3fn_info(const char* name, const char* description) {
  mxc_backend_info info = scalar_info(name, description);
  info.input_dtypes = 1u << MXC_INPUT_BFLOAT16;
  info.output_dtypes = 1u << MXC_OUTPUT_FLOAT8_E4M3FN;
  return info;
}

int quantize_then_plant(const QuantizeCall& call, const mxc_backend_info& info, void (*plant)(const QuantizeCall&)) {
  if ((info.input_dtypes >> call.params->input_dtype & 1u) == 0 ||
      (info.output_dtypes >> call.params->output_dtype & 1u) == 0) {
    return MXC_STATUS_UNSUPPORTED;
  }
  const int status = quantize_with_scalar(call);
  if (status == MXC_STATUS_OK) plant(call);
  return status;
}

void change_byte(volatile void* address) {
  volatile std::uint8_t* byte = static_cast<volatile std::uint8_t*>(address);
  *byte = static_cast<std::uint8_t>(~*byte);
}

bool parent_is_mxconform() {
  const pid_t parent = ::getppid();
  if (parent <= 1) return false;
  std::ifstream comm("/proc/" + std::to_string(parent) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name.rfind("mxconform", 0) == 0;
}

void null_write() {
  // Both volatile: the compiler can neither see that the pointer is null nor drop the store.
  volatile int* volatile target = nullptr;
  *target = 1;
  __builtin_trap();  // not reached: the write faults
}

mxc_backend_info scalar_info(const char* name, const char* description) {
  mxc_backend_info info{};
  info.struct_size = sizeof(mxc_backend_info);
  info.abi_version = MXCONFORM_BACKEND_ABI_VERSION;
  info.name = name;
  info.version = "test";
  info.description = description;
  info.input_dtypes = 1u << MXC_INPUT_BFLOAT16 | 1u << MXC_INPUT_FLOAT16;
  for (const OutputDtypeInfo& dtype : output_dtypes()) info.output_dtypes |= 1u << static_cast<int>(dtype.id);
  info.emax_modes = 1u << MXC_EMAX | 1u << MXC_EMAX_MINUS_1;
  info.fp8_nan_policies = 1u << MXC_FP8_NAN_CANONICAL | 1u << MXC_FP8_NAN_ZERO;
  info.scale_layouts = 1u << MXC_SCALE_PHYSICAL | 1u << MXC_SCALE_LOGICAL;
  info.fp4_high_parities = 1u << 0 | 1u << 1;
  info.fp4_lane_strides = ~std::uint64_t{0};
  return info;
}

}  // namespace mxconform::test_backends
