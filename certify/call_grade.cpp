#include "call_grade.h"

#include <cstdio>

#include "oracle.h"

namespace mxconform::certify {

std::string hex_byte(std::uint8_t value) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02X", value);
  return text;
}

bool block_of_site(const QuantizeConfig& config, const std::vector<std::uint16_t>& input, const std::string& site,
                   QuantizeConfig& block_config, std::vector<std::uint16_t>& block_input) {
  const Geometry g = geometry(config);
  const bool is_data = site.rfind("data ", 0) == 0;
  if (!is_data && site.rfind("scale ", 0) != 0) return false;
  std::size_t byte = 0;
  const std::string digits = site.substr(is_data ? 5 : 6);
  if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos) return false;
  byte = std::stoull(digits);
  std::size_t group = 0, column = 0;
  if (is_data) {
    if (byte >= g.data_bytes) return false;
    std::size_t element = byte;
    if (is_fp4(config.output)) {
      // The element whose nibble lands at the byte's low nibble position (the remap is a permutation).
      const std::size_t elements = config.partitions * config.free;
      for (element = 0; element < elements; ++element) {
        if (oracle::nibble_position(element, config.fp4_lane_stride) / 2 == byte) break;
      }
      if (element == elements) return false;
    }
    group = element / config.free / g.block_height;
    column = element % config.free / g.block_width;
  } else {
    if (byte >= g.scale_bytes) return false;
    const std::size_t row = byte / g.block_cols;
    column = byte % g.block_cols;
    for (group = 0; group < g.block_rows && scale_row(config, group) != row; ++group) {
    }
    if (group == g.block_rows) return false;  // a row no slot names
  }
  // The block's own shape: 8x4, 1x32 or 32x1 elements. A 32x1 block of an x4 dtype (four
  // elements of a row per container, so F % 4 == 0) comes with the three blocks beside it: the
  // aligned [32, 4] window, which also holds both elements of an FP4 byte.
  const std::size_t per_container = static_cast<std::size_t>(info(config.output).elements_per_container);
  const std::size_t height = g.block_height;
  const std::size_t width = g.block_width % per_container == 0 ? g.block_width : per_container;
  const std::size_t first_column = column * g.block_width / width * width;
  const std::size_t size = height * width;
  block_config = config;
  block_config.partitions = height;
  block_config.free = width;
  if (block_config.fp4_lane_stride != 0 && size % (2 * block_config.fp4_lane_stride) != 0) {
    block_config.fp4_lane_stride = 0;
  }
  block_input.assign(size, 0);
  for (std::size_t i = 0; i < size; ++i) {
    block_input[i] = input[(group * height + i / width) * config.free + first_column + i % width];
  }
  return true;
}

CallGrade grade_call(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                     const std::vector<std::uint8_t>& expected_data,
                     const std::vector<std::uint8_t>& expected_scale, const std::uint8_t* unnamed_rows,
                     const std::vector<std::uint8_t>& actual_data, const std::vector<std::uint8_t>& actual_scale) {
  CallGrade grade;
  const Geometry g = geometry(config);
  const std::vector<bool> named = named_scale_rows(config);
  // 1. Scale rows no slot names keep what they held before the call.
  for (std::size_t row = 0; row < g.scale_rows; ++row) {
    if (named[row]) continue;
    for (std::size_t c = 0; c < g.block_cols; ++c) {
      const std::size_t i = row * g.block_cols + c;
      if (actual_scale[i] != unnamed_rows[i]) {
        grade.outcome = Outcome::kWriteUnnamedScaleRow;
        grade.site = "scale " + std::to_string(i);
        grade.detail = "scale row " + std::to_string(row) + " (no slot names it) byte " + std::to_string(c) +
                       " changed from " + hex_byte(unnamed_rows[i]) + " to " + hex_byte(actual_scale[i]);
        return grade;
      }
    }
  }
  // 2. Every named scale byte, then every data byte, against the oracle.
  for (std::size_t i = 0; i < expected_scale.size(); ++i) {
    if (named[i / g.block_cols] && actual_scale[i] != expected_scale[i]) {
      grade.outcome = Outcome::kWrongResult;
      grade.site = "scale " + std::to_string(i);
      grade.detail = "scale byte " + std::to_string(i) + " (row " + std::to_string(i / g.block_cols) + ", block column " +
                     std::to_string(i % g.block_cols) + "): expected " + hex_byte(expected_scale[i]) + ", actual " +
                     hex_byte(actual_scale[i]);
      return grade;
    }
  }
  const std::vector<std::uint8_t> expected = with_unspecified_from(config, input, expected_scale, expected_data, actual_data);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (actual_data[i] != expected[i]) {
      grade.outcome = Outcome::kWrongResult;
      grade.site = "data " + std::to_string(i);
      grade.detail = "data byte " + std::to_string(i) + ": expected " + hex_byte(expected[i]) + ", actual " +
                     hex_byte(actual_data[i]);
      return grade;
    }
  }
  return grade;
}

std::string comparison_text(const Comparison& comparison) {
  std::string text;
  if (comparison.first_scale()) {
    text += std::to_string(comparison.scale_differences) + " scale byte(s) differ, first " +
            comparison.first_scale()->to_string();
  }
  if (comparison.first_scale() && comparison.first_data()) text += "; ";
  if (comparison.first_data()) {
    text += std::to_string(comparison.data_differences) + " data byte(s) differ, first " +
            comparison.first_data()->to_string();
  }
  return text;
}

}  // namespace mxconform::certify
