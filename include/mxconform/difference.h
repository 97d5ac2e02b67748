#pragma once
// One compare step for every layer (certify, its shrinker, corpus replay, explain): the expected
// bytes of a quantize call against the actual ones, and what differs — which byte, which block and
// elements, the input bits, both E8M0s, and the classes that say what kind of failure it is (its
// signature). A shrink step keeps a smaller case only when its signature is unchanged.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mxconform/quantize_config.h"

namespace mxconform {

// A block by its content and its E8M0 (docs/contract.md steps 3-4), in this order of precedence:
// a NaN in it, an Inf in it, all zeros, E8M0 1 (the low clamp), E8M0 254 (the largest finite
// scale), anything else.
enum class BlockClass { kNan, kInf, kZero, kClampLow, kLargestE8m0, kOrdinary };
// An element by its input and where its scaled value lands: NaN, Inf or zero input; a scaled
// magnitude beyond the output's largest finite value (saturation); exactly halfway between two
// neighbouring output values (a tie); anything else. kNotElement for a scale byte.
enum class ElementClass { kNotElement, kNan, kInf, kZero, kSaturation, kTie, kOrdinary };
std::string_view name(BlockClass value);
std::string_view name(ElementClass value);

// One element whose code differs, inside a differing data byte.
struct ElementDifference {
  std::size_t index = 0;           // row-major element index
  std::size_t group = 0;           // its block (block row, column block)
  std::size_t column_block = 0;
  std::optional<bool> high_nibble;  // FP4: which nibble of the byte holds it; FP8: none
  std::uint8_t expected_code = 0;
  std::uint8_t actual_code = 0;
  std::uint8_t expected_e8m0 = 0;  // its block's scale byte
  std::uint8_t actual_e8m0 = 0;
};

// One differing output byte.
struct Difference {
  bool scale = false;            // a scale byte, else a data byte
  std::size_t offset = 0;        // in its buffer
  std::size_t row = 0;           // scale bytes: the row of the scale buffer (physical or logical)
  bool named_row = true;         // scale bytes: false for a physical row no slot names (see compare)
  std::size_t group = 0;         // its block (block row, column block); data bytes: the first element's
  std::size_t column_block = 0;
  std::optional<std::size_t> element;  // data bytes: the first differing element (row-major index)
  std::vector<ElementDifference> elements;  // data bytes: every element whose code differs (FP4: up to 2)
  std::uint16_t input_bits = 0;  // that element's input bits (data bytes)
  std::uint8_t expected = 0;     // the byte
  std::uint8_t actual = 0;
  std::uint8_t expected_e8m0 = 0;  // the block's scale byte
  std::uint8_t actual_e8m0 = 0;
  BlockClass block_class = BlockClass::kOrdinary;
  ElementClass element_class = ElementClass::kNotElement;
  QuantizeConfig config;         // the call's configuration, shape included

  // What kind of failure this is, without where: scale or data byte, block class, element
  // class, and the configuration's dtypes and knobs (not its shape).
  std::string signature() const;
  // One line: the byte, expected and actual, its block, element and input, both E8M0s.
  std::string to_string() const;
};

// The differences of one call: the first differing scale bytes and the first differing data bytes
// (each kind, so that a bad scale byte does not hide element-level ones), in buffer order, and how
// many of each.
struct Comparison {
  std::vector<Difference> scale;  // the first CompareOptions::max_reported differing scale bytes
  std::vector<Difference> data;   // the first CompareOptions::max_reported differing data bytes
  std::size_t scale_differences = 0;  // all of them
  std::size_t data_differences = 0;

  bool equal() const { return scale_differences == 0 && data_differences == 0; }
  // The first of each kind, or nullptr.
  const Difference* first_scale() const { return scale.empty() ? nullptr : &scale.front(); }
  const Difference* first_data() const { return data.empty() ? nullptr : &data.front(); }
  // The one a report leads with: the scale byte when there is one, else the data byte.
  const Difference* first() const { return first_scale() ? first_scale() : first_data(); }
};

struct CompareOptions {
  std::size_t max_reported = 1;  // differences kept per kind (scale, data); every one is counted
  // Physical scale rows no slot names are compared too: their expected bytes are what the buffer
  // held before the call, which the subject must keep (a difference there has named_row false).
  // Otherwise they are skipped, and whoever runs the call checks them.
  bool check_unnamed_rows = false;
};

// The expected data bytes with the elements the contract leaves unspecified taken from `actual`
// (docs/contract.md, "Profiles"):
// - under a profile whose NaN/Inf rule is a block NaN (SpecialsRule::kBlockNan), the FP4 codes of
//   a block whose expected scale byte is 0xFF. That scale makes every element of the block NaN
//   whatever its code, OCP MX leaves the codes under it out of scope, and FP4 has no NaN code, so
//   torchao's bytes there depend on the device ("NaN and Inf in a block");
// - under a profile with Profile::negative_zero_sign_open (transformer-engine-mxfp8), the sign
//   of the FP8 zero code of an input -0: TransformerEngine's
//   default kernel built with CUDA before 13.1 adds +0 in its scaling FMA and writes 0x00, the
//   others 0x80 ("Scale rule", RCEIL satfinite). An actual byte of 0x00 or 0x80 there is taken.
// Every other byte is `expected`'s; so is everything when a size does not fit `config`. Every
// grading step (compare, certify's grade, bundle grade, verify, fingerprint's match) compares
// against this.
std::vector<std::uint8_t> with_unspecified_from(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                                                const std::vector<std::uint8_t>& expected_scale,
                                                std::vector<std::uint8_t> expected_data,
                                                const std::vector<std::uint8_t>& actual_data);

// Compares a call's output with the expected output. `config` is validated; the buffers have
// geometry(config)'s sizes (Error otherwise); scale bytes are in the configured layout. Unspecified
// elements (with_unspecified_from) never differ.
Comparison compare(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                   const std::vector<std::uint8_t>& expected_data, const std::vector<std::uint8_t>& expected_scale,
                   const std::vector<std::uint8_t>& actual_data, const std::vector<std::uint8_t>& actual_scale,
                   const CompareOptions& options = {});

// The class of block (group, column_block) of `input` whose E8M0 is `e8m0`.
BlockClass classify_block(const QuantizeConfig& config, const std::vector<std::uint16_t>& input, std::size_t group,
                          std::size_t column_block, std::uint8_t e8m0);
// The class of one input element in a block whose E8M0 is `e8m0`.
ElementClass classify_element(const QuantizeConfig& config, std::uint16_t input_bits, std::uint8_t e8m0);

}  // namespace mxconform
