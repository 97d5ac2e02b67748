#include "quantize_case.h"

#include <ostream>
#include <string>

#include <rapidcheck.h>

#include "fp4_pack.h"
#include "mxconform/lane_remap.h"
#include "mxconform/scale_layout.h"

namespace mxconform::properties {
namespace {

std::size_t scale_index(const QuantizeConfig& config, std::size_t g, std::size_t c) {
  const std::size_t row = scale_row(config, g);
  return row * geometry(config).block_cols + c;
}

}  // namespace

bool operator==(const QuantizeCase& lhs, const QuantizeCase& rhs) {
  const QuantizeConfig& l = lhs.config;
  const QuantizeConfig& r = rhs.config;
  return l.input == r.input && l.output == r.output && l.partitions == r.partitions && l.free == r.free &&
         l.emax_mode == r.emax_mode && l.fp8_nan == r.fp8_nan && l.fp4_lane_stride == r.fp4_lane_stride &&
         l.fp4_high_parity == r.fp4_high_parity && l.scale_layout == r.scale_layout && lhs.input == rhs.input;
}

bool operator==(const Outputs& lhs, const Outputs& rhs) { return lhs.data == rhs.data && lhs.scale == rhs.scale; }

Outputs quantize(const Subject& subject, const QuantizeCase& c) {
  const Geometry g = geometry(c.config);
  Outputs out{std::vector<std::uint8_t>(g.data_bytes, kUnwrittenData),
              std::vector<std::uint8_t>(g.scale_bytes, kUnwrittenScale)};
  // A plug-in subject (MXCONFORM_SUBJECT) may not declare every knob value: not a failure.
  const std::string unsupported = subject.unsupported_reason(c.config);
  if (!unsupported.empty()) RC_DISCARD(std::string(subject.name()) + ": " + unsupported);
  subject.quantize(c.config, c.input.data(), out.data.data(), out.scale.data());
  return out;
}

std::vector<std::uint8_t> element_codes(const QuantizeConfig& config, const std::vector<std::uint8_t>& data) {
  if (!is_fp4(config.output)) return data;
  const std::size_t count = config.partitions * config.free;
  std::vector<std::uint8_t> codes(count);
  impl::unpack_fp4(data.data(), count, config.fp4_lane_stride, config.fp4_high_parity, codes.data());
  return codes;
}

void set_code(const QuantizeConfig& config, std::vector<std::uint8_t>& data, std::size_t k, std::uint8_t code) {
  if (!is_fp4(config.output)) {
    data[k] = code;
    return;
  }
  constexpr int kNibbleBits = 4;
  constexpr std::uint8_t kLowNibble = 0b1111;
  const std::size_t position = config.fp4_lane_stride == 0 ? k : lane_remap(k, config.fp4_lane_stride);
  std::uint8_t& byte = data[position / 2];
  if (static_cast<int>(position % 2) == config.fp4_high_parity) {
    byte = static_cast<std::uint8_t>((byte & kLowNibble) | (code << kNibbleBits));
  } else {
    byte = static_cast<std::uint8_t>((byte & ~kLowNibble) | (code & kLowNibble));
  }
}

std::uint8_t block_scale(const QuantizeConfig& config, const std::vector<std::uint8_t>& scale, std::size_t g,
                         std::size_t c) {
  return scale[scale_index(config, g, c)];
}

void set_block_scale(const QuantizeConfig& config, std::vector<std::uint8_t>& scale, std::size_t g, std::size_t c,
                     std::uint8_t e8m0) {
  scale[scale_index(config, g, c)] = e8m0;
}

std::uint8_t code_sign_bit(const QuantizeConfig& config) {
  return static_cast<std::uint8_t>(element_format(config.output).sign_mask);
}

std::size_t element_index(const QuantizeConfig& config, std::size_t g, std::size_t c, std::size_t k) {
  return (g * kBlockRows + k / kBlockCols) * config.free + c * kBlockCols + k % kBlockCols;
}

void showValue(const QuantizeCase& c, std::ostream& out) {
  const Geometry g = geometry(c.config);
  out << c.config.partitions << "x" << c.config.free << ", " << g.block_rows * g.block_cols << " blocks; "
      << describe(c.config);
}

}  // namespace mxconform::properties
