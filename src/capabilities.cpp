#include "mxconform/capabilities.h"

#include <algorithm>
#include <cstddef>

namespace mxconform {
namespace {

constexpr std::uint32_t kTwoValues = 0b11;  // the enums of two values: bits 0 and 1

std::uint32_t defined_output_bits() {
  std::uint32_t bits = 0;
  for (const OutputDtypeInfo& out : output_dtypes()) bits |= 1u << static_cast<int>(out.id);
  return bits;
}

bool has(std::uint64_t mask, std::uint32_t bit) { return bit < 64 && ((mask >> bit) & 1) != 0; }

}  // namespace

Capabilities Capabilities::everything() {
  Capabilities all;
  all.input_dtypes = kTwoValues;
  all.output_dtypes = defined_output_bits();
  all.emax_modes = all.fp8_nan_policies = all.scale_layouts = all.fp4_high_parities = kTwoValues;
  all.fp4_lane_strides = ~std::uint64_t{0};
  return all;
}

Capabilities Capabilities::every_profile() {
  Capabilities all = everything();
  all.profiles = (1u << kProfileCount) - 1;
  all.block_shapes = (1u << kBlockShapeCount) - 1;
  return all;
}

Capabilities Capabilities::of(const mxc_backend_info& info) {
  Capabilities c;
  c.input_dtypes = info.input_dtypes;
  c.output_dtypes = info.output_dtypes;
  c.emax_modes = info.emax_modes;
  c.fp8_nan_policies = info.fp8_nan_policies;
  c.scale_layouts = info.scale_layouts;
  c.fp4_high_parities = info.fp4_high_parities;
  c.fp4_lane_strides = info.fp4_lane_strides;
  const bool knows_profiles = info.struct_size >= offsetof(mxc_backend_info, block_shapes) + sizeof info.block_shapes;
  // A zero mask keeps the default: a backend built against the new header that never set them.
  if (knows_profiles && info.profiles != 0) c.profiles = info.profiles;
  if (knows_profiles && info.block_shapes != 0) c.block_shapes = info.block_shapes;
  return c;
}

void Capabilities::fill(mxc_backend_info& info) const {
  info.input_dtypes = input_dtypes;
  info.output_dtypes = output_dtypes;
  info.emax_modes = emax_modes;
  info.fp8_nan_policies = fp8_nan_policies;
  info.scale_layouts = scale_layouts;
  info.fp4_high_parities = fp4_high_parities;
  info.fp4_lane_strides = fp4_lane_strides;
  if (info.struct_size >= offsetof(mxc_backend_info, block_shapes) + sizeof info.block_shapes) {
    info.profiles = profiles;
    info.block_shapes = block_shapes;
  }
}

std::string Capabilities::undeclared(const QuantizeConfig& config) const {
  if (!has(profiles, static_cast<std::uint32_t>(config.profile))) return "profile " + std::string(name(config.profile));
  if (!has(block_shapes, static_cast<std::uint32_t>(config.block_shape))) {
    return "block shape " + std::string(name(config.block_shape));
  }
  if (!has(input_dtypes, static_cast<std::uint32_t>(config.input))) return "input dtype " + std::string(name(config.input));
  if (!has(output_dtypes, static_cast<std::uint32_t>(config.output))) return "output dtype " + std::string(name(config.output));
  if (!has(emax_modes, static_cast<std::uint32_t>(config.emax_mode))) return "EMAX mode " + std::string(name(config.emax_mode));
  if (!is_fp4(config.output) && !has(fp8_nan_policies, static_cast<std::uint32_t>(config.fp8_nan))) {
    return "FP8 NaN policy " + std::string(name(config.fp8_nan));
  }
  if (!has(scale_layouts, static_cast<std::uint32_t>(config.scale_layout))) {
    return "scale layout " + std::string(name(config.scale_layout));
  }
  if (is_fp4(config.output)) {
    if (!has(fp4_high_parities, static_cast<std::uint32_t>(config.fp4_high_parity))) {
      return "FP4 high parity " + std::to_string(config.fp4_high_parity);
    }
    constexpr std::uint32_t kAllAbove = 63;
    if (!has(fp4_lane_strides, std::min(config.fp4_lane_stride, kAllAbove))) {
      return "FP4 lane stride " + std::to_string(config.fp4_lane_stride);
    }
  }
  return {};
}

std::string Capabilities::undefined_bits() const {
  const struct {
    const char* field;
    std::uint32_t mask, allowed;
  } masks[] = {{"input_dtypes", input_dtypes, kTwoValues},
               {"output_dtypes", output_dtypes, defined_output_bits()},
               {"emax_modes", emax_modes, kTwoValues},
               {"fp8_nan_policies", fp8_nan_policies, kTwoValues},
               {"scale_layouts", scale_layouts, kTwoValues},
               {"fp4_high_parities", fp4_high_parities, kTwoValues},
               {"profiles", profiles, (1u << kProfileCount) - 1},
               {"block_shapes", block_shapes, (1u << kBlockShapeCount) - 1}};
  for (const auto& m : masks) {
    const std::uint32_t extra = m.mask & ~m.allowed;
    if (extra == 0) continue;
    int bit = 0;
    while (((extra >> bit) & 1) == 0) ++bit;
    return std::string(m.field) + " sets bit " + std::to_string(bit) + ", which names no value";
  }
  return {};
}

std::string Capabilities::declaration_error() const {
  std::string bits = undefined_bits();
  if (!bits.empty()) return bits;
  std::string declared_profiles, admitted_shapes, declared_shapes;
  std::uint32_t admitted = 0;
  for (const Profile& p : mxconform::profiles()) {
    if (!has(profiles, static_cast<std::uint32_t>(p.id))) continue;
    declared_profiles += (declared_profiles.empty() ? "" : ", ") + std::string(p.name);
    admitted |= p.block_shapes;
  }
  if ((admitted & block_shapes) != 0) return {};
  for (std::uint32_t s = 0; s < kBlockShapeCount; ++s) {
    const std::string shape(name(static_cast<BlockShape>(s)));
    if (has(admitted, s)) admitted_shapes += (admitted_shapes.empty() ? "" : ", ") + shape;
    if (has(block_shapes, s)) declared_shapes += (declared_shapes.empty() ? "" : ", ") + shape;
  }
  return "profiles declares " + declared_profiles + ", which admit block shapes " + admitted_shapes +
         "; block_shapes declares " + declared_shapes + " (0 declares 8x4): no configuration fits both";
}

std::string declaration_problem(std::uint32_t table_struct_size, std::uint32_t info_struct_size,
                                std::uint32_t abi_version, const Capabilities& capabilities) {
  if (table_struct_size < sizeof(mxc_backend)) {
    return "mxc_backend.struct_size is " + std::to_string(table_struct_size) + ", less than the " +
           std::to_string(sizeof(mxc_backend)) + " bytes of ABI version 1";
  }
  if (abi_version != MXCONFORM_BACKEND_ABI_VERSION) {
    return "ABI version " + std::to_string(abi_version) + ", this mxconform speaks " +
           std::to_string(MXCONFORM_BACKEND_ABI_VERSION);
  }
  if (info_struct_size < MXC_BACKEND_INFO_V1_SIZE) {
    return "mxc_backend_info.struct_size is " + std::to_string(info_struct_size) + ", less than the " +
           std::to_string(MXC_BACKEND_INFO_V1_SIZE) + " bytes of ABI version 1";
  }
  const std::string error = capabilities.declaration_error();
  return error.empty() ? std::string() : "mxc_backend_info." + error;
}

}  // namespace mxconform
