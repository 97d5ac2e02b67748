#pragma once
// What a subject supports, as data: the same facts a plug-in declares in its mxc_backend_info
// (include/mxconform/backend.h). Built-in subjects support everything; a plug-in declares masks.
#include <cstdint>
#include <string>

#include "mxconform/backend.h"
#include "mxconform/quantize_config.h"

namespace mxconform {

struct Capabilities {
  // Bit i set when value i is supported: input dtypes (enum mxc_input_dtype), output dtypes (BIR
  // ids), EMAX modes, FP8 NaN policies, scale layouts, FP4 high parities (0 and 1); lane strides:
  // bit s for stride s in 0..62, bit 63 for every stride of 63 and above.
  std::uint32_t input_dtypes = 0;
  std::uint32_t output_dtypes = 0;
  std::uint32_t emax_modes = 0;
  std::uint32_t fp8_nan_policies = 0;
  std::uint32_t scale_layouts = 0;
  std::uint32_t fp4_high_parities = 0;
  std::uint64_t fp4_lane_strides = 0;
  // Bit i: ProfileId i and BlockShape i (enum mxc_profile, mxc_block_shape). A backend whose
  // mxc_backend_info ends before these fields supports the neuron profile and 8 x 4 blocks.
  std::uint32_t profiles = 1u << static_cast<std::uint32_t>(ProfileId::kNeuron);
  std::uint32_t block_shapes = 1u << static_cast<std::uint32_t>(BlockShape::k8x4);

  // Every dtype and knob value of ABI version 1, in the neuron profile only (the built-ins).
  static Capabilities everything();
  // everything(), and every profile and block shape (the oracle).
  static Capabilities every_profile();
  // The masks of a backend's declaration; the appended masks only when info.struct_size covers them.
  static Capabilities of(const mxc_backend_info& info);
  // Writes the masks into a declaration.
  void fill(mxc_backend_info& info) const;

  // Empty when `config` is supported; otherwise which declaration excludes it ("output dtype
  // float4_e2m1fn_x4"). The FP8 NaN policy counts only for FP8 outputs, stride and parity only
  // for FP4.
  std::string undeclared(const QuantizeConfig& config) const;
  // Empty when every set bit names a value of the ABI; otherwise the first field and bit that
  // does not ("output_dtypes sets bit 3, which names no value").
  std::string undefined_bits() const;
  // undefined_bits(), else empty when some declared profile admits some declared block shape;
  // otherwise why not ("profiles ocp-floor admit block shapes 1x32; block_shapes declares 8x4"):
  // a declaration no configuration can be asked of.
  std::string declaration_error() const;
};

// The checks a backend's declaration must pass before mxconform calls it, given the struct sizes
// and ABI version the backend reported: empty when it passes, else the rule it breaks, naming the
// struct and field.
std::string declaration_problem(std::uint32_t table_struct_size, std::uint32_t info_struct_size,
                                std::uint32_t abi_version, const Capabilities& capabilities);

}  // namespace mxconform
