#include "case_replay.h"

#include <exception>

#include "byte_syntax.h"
#include "mxconform/lane_remap.h"
#include "mxconform/scale_layout.h"
#include "value_text.h"

namespace mxconform::corpus {
namespace {

constexpr std::uint8_t kNeverWrittenFill = 0xFF;  // above every E8M0 byte the contract writes
constexpr std::uint32_t kNibbleBits = 4;
constexpr std::uint8_t kNibbleMask = 0x0F;

std::vector<std::uint8_t> complement_of(const std::vector<ExpectedByte>& expected) {
  std::vector<std::uint8_t> out;
  out.reserve(expected.size());
  for (const ExpectedByte& byte : expected) out.push_back(byte ? static_cast<std::uint8_t>(~*byte) : kNeverWrittenFill);
  return out;
}

std::size_t scale_row_of(const QuantizeConfig& config, std::size_t group) {
  return scale_row(config, group);
}

// The block row a scale row holds, or none for a physical row no slot names.
std::optional<std::size_t> group_of_scale_row(const QuantizeConfig& config, std::size_t row) {
  if (config.scale_layout == ScaleLayout::kLogical) return row;
  const std::size_t within = row % kScaleSlotGroupStride;
  if (within >= kScaleSlotGroupRows) return std::nullopt;
  return row / kScaleSlotGroupStride * kScaleSlotGroupRows + within;
}

class Comparison {
 public:
  Comparison(const CorpusCase& c, const std::vector<std::uint8_t>& data, const std::vector<std::uint8_t>& scale)
      : case_(c), data_(data), scale_(scale), g_(geometry(c.config)) {}

  ElementDifference element(std::size_t index, std::string_view nibble, std::uint8_t expected_code,
                            std::uint8_t actual_code) const {
    ElementDifference e{};
    e.index = index;
    e.row = index / case_.config.free;
    e.col = index % case_.config.free;
    e.group = e.row / g_.block_height;
    e.column_block = e.col / g_.block_width;
    e.nibble = nibble;
    e.expected_code = expected_code;
    e.actual_code = actual_code;
    const std::size_t scale_offset = scale_row_of(case_.config, e.group) * g_.block_cols + e.column_block;
    e.expected_e8m0 = case_.scale[scale_offset];
    e.actual_e8m0 = scale_[scale_offset];
    return e;
  }

  ByteDifference data_byte(std::size_t offset) const {
    ByteDifference d;
    d.offset = offset;
    d.expected = case_.data[offset];
    d.actual = data_[offset];
    if (!is_fp4(case_.config.output)) {
      d.elements.push_back(element(offset, "", *d.expected, d.actual));
      return d;
    }
    // Nibble positions 2*offset and 2*offset + 1; the remap is an involution, so it also maps a
    // position back to its element.
    for (std::size_t position = 2 * offset; position < 2 * offset + 2; ++position) {
      const bool high = static_cast<int>(position % 2) == case_.config.fp4_high_parity;
      const auto nibble_of = [&](std::uint8_t byte) {
        return static_cast<std::uint8_t>(high ? byte >> kNibbleBits : byte & kNibbleMask);
      };
      const std::uint8_t expected_code = nibble_of(*d.expected);
      const std::uint8_t actual_code = nibble_of(d.actual);
      if (expected_code == actual_code) continue;
      const std::uint32_t stride = case_.config.fp4_lane_stride;
      const std::size_t index = stride == 0 ? position : lane_remap(position, stride);
      d.elements.push_back(element(index, high ? "high" : "low", expected_code, actual_code));
    }
    return d;
  }

  ByteDifference scale_byte(std::size_t offset) const {
    ByteDifference d;
    d.scale = true;
    d.offset = offset;
    d.expected = case_.scale[offset];
    d.actual = scale_[offset];
    d.row = offset / g_.block_cols;
    d.column_block = offset % g_.block_cols;
    d.group = group_of_scale_row(case_.config, d.row);
    return d;
  }

 private:
  const CorpusCase& case_;
  const std::vector<std::uint8_t>& data_;
  const std::vector<std::uint8_t>& scale_;
  Geometry g_;
};

std::string block_text(std::size_t group, std::size_t column_block) {
  return "block (" + std::to_string(group) + ", " + std::to_string(column_block) + ")";
}

}  // namespace

std::string_view name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass: return "PASS";
    case Verdict::kFail: return "FAIL";
    case Verdict::kNotSupported: return "NOT SUPPORTED";
  }
  return "?";
}

std::string to_string(const ByteDifference& d) {
  std::string text = std::string(d.scale ? "scale" : "data") + " byte " + std::to_string(d.offset);
  if (d.scale) text += " (row " + std::to_string(d.row) + ")";
  text += ": expected " + to_string(d.expected) + ", actual " + format_hex(d.actual, 2);
  if (d.scale) {
    if (!d.group) return text + "; a row no slot names must never be written";
    return text + "; the E8M0 of " + block_text(*d.group, d.column_block);
  }
  for (const ElementDifference& e : d.elements) {
    const int digits = e.nibble.empty() ? 2 : 1;
    text += "; " + (e.nibble.empty() ? std::string() : std::string(e.nibble) + " nibble: ") + "element " +
            std::to_string(e.index) + " (row " + std::to_string(e.row) + ", col " + std::to_string(e.col) + ") code " +
            format_hex(e.expected_code, digits) + " -> " + format_hex(e.actual_code, digits) + ", " +
            block_text(e.group, e.column_block) + " E8M0 " + std::to_string(e.expected_e8m0.value_or(0));
    if (e.expected_e8m0 != e.actual_e8m0) text += " (actual " + std::to_string(e.actual_e8m0) + ")";
  }
  return text;
}

ReplayResult replay_case(const CorpusCase& c, const Subject& subject, std::size_t max_reported) {
  ReplayResult result;
  result.reason = subject.unsupported_reason(c.config);
  if (!result.reason.empty()) {
    result.verdict = Verdict::kNotSupported;
    return result;
  }
  std::vector<std::uint8_t> data = complement_of(c.data);
  std::vector<std::uint8_t> scale = complement_of(c.scale);
  try {
    subject.quantize(c.config, c.input.data(), data.data(), scale.data());
  } catch (const std::exception& error) {
    result.verdict = Verdict::kFail;
    result.reason = std::string("quantize threw: ") + error.what();
    return result;
  }
  const Comparison comparison(c, data, scale);
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (c.data[i] == data[i]) continue;
    if (++result.data_differences <= max_reported) result.differences.push_back(comparison.data_byte(i));
  }
  for (std::size_t i = 0; i < scale.size(); ++i) {
    const bool same = c.scale[i] ? *c.scale[i] == scale[i] : scale[i] == kNeverWrittenFill;
    if (same) continue;
    if (++result.scale_differences <= max_reported) result.differences.push_back(comparison.scale_byte(i));
  }
  if (result.data_differences + result.scale_differences > 0) result.verdict = Verdict::kFail;
  return result;
}

}  // namespace mxconform::corpus
