#pragma once
// The verdict on one quantize call's outputs against the oracle's bytes: shared by certify (what
// a worker's buffers hold after the call) and grade (what a runner elsewhere wrote to files).
#include <cstdint>
#include <string>
#include <vector>

#include "worker_backend.h"
#include "mxconform/difference.h"
#include "mxconform/quantize_config.h"

namespace mxconform::certify {

struct CallGrade {
  Outcome outcome = Outcome::kPass;  // kPass, kWriteUnnamedScaleRow or kWrongResult
  std::string site;                  // "scale 12", "data 40": the first byte found wrong
  std::string detail;                // that byte, expected and actual, in words
};

// Grades `actual_*` (sizes geometry(config).data_bytes and scale_bytes; checked by the caller)
// against `expected_*`. First the scale rows no slot names (physical layout): each must still
// hold `unnamed_rows`'s byte (the buffer as it was before the call, scale_bytes long). Then every
// named scale byte, then every data byte but those the contract leaves unspecified
// (with_unspecified_from). Reports the first difference found.
CallGrade grade_call(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                     const std::vector<std::uint8_t>& expected_data,
                     const std::vector<std::uint8_t>& expected_scale, const std::uint8_t* unnamed_rows,
                     const std::vector<std::uint8_t>& actual_data, const std::vector<std::uint8_t>& actual_scale);

// The block that byte `site` ("data N" or "scale N", as grade_call reports it) lies in, as a case
// of its own: the block's 32 inputs, and `config` with the block's shape (8x4, 1x32 or 32x1; lane
// stride 0 when its window does not fit one block). A 32x1 block of an x4 dtype comes as the
// aligned [32, 4] window holding it (x4 dtypes need F % 4 == 0), which also holds both elements of
// an FP4 byte. Returns false, changing nothing, when `site` names no byte of `config`.
bool block_of_site(const QuantizeConfig& config, const std::vector<std::uint16_t>& input, const std::string& site,
                   QuantizeConfig& block_config, std::vector<std::uint16_t>& block_input);

// "0x3F".
std::string hex_byte(std::uint8_t value);

// A wrong result's differences as certify and fingerprint report them: "N scale byte(s) differ,
// first <Difference>; M data byte(s) differ, first <Difference>" (each part only when present).
std::string comparison_text(const Comparison& comparison);

}  // namespace mxconform::certify
