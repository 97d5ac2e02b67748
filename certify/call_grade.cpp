#include "call_grade.h"

#include <cstdio>

namespace mxconform::certify {

std::string hex_byte(std::uint8_t value) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02X", value);
  return text;
}

CallGrade grade_call(const QuantizeConfig& config, const std::vector<std::uint8_t>& expected_data,
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
  for (std::size_t i = 0; i < expected_data.size(); ++i) {
    if (actual_data[i] != expected_data[i]) {
      grade.outcome = Outcome::kWrongResult;
      grade.site = "data " + std::to_string(i);
      grade.detail = "data byte " + std::to_string(i) + ": expected " + hex_byte(expected_data[i]) + ", actual " +
                     hex_byte(actual_data[i]);
      return grade;
    }
  }
  return grade;
}

}  // namespace mxconform::certify
