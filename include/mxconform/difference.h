#pragma once
// One compare step for every layer (certify, its shrinker, reports): the expected bytes of a
// quantize call against the actual ones, and what the first difference is — which byte, which
// block and element, the input bits, both E8M0s, and the classes that say what kind of failure
// it is (its signature). A shrink step keeps a smaller case only when its signature is unchanged.
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

// One differing output byte.
struct Difference {
  bool scale = false;            // a scale byte, else a data byte
  std::size_t offset = 0;        // in its buffer
  std::size_t group = 0;         // its block (block row, column block)
  std::size_t column_block = 0;
  std::optional<std::size_t> element;  // data bytes: the first differing element (row-major index)
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

// The differences of one call: the first differing scale byte and the first differing data byte
// (each, so that a bad scale byte does not hide element-level ones), and how many of each.
struct Comparison {
  std::optional<Difference> first_scale;
  std::optional<Difference> first_data;
  std::size_t scale_differences = 0;
  std::size_t data_differences = 0;

  bool equal() const { return scale_differences == 0 && data_differences == 0; }
  // The one a report leads with: the scale byte when there is one, else the data byte.
  const std::optional<Difference>& first() const { return first_scale ? first_scale : first_data; }
};

// Compares a call's output with the expected output. `config` is validated; the buffers have
// geometry(config)'s sizes (Error otherwise); scale bytes are in the configured layout and
// physical rows no slot names are skipped (whoever runs the call checks those).
Comparison compare(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                   const std::vector<std::uint8_t>& expected_data, const std::vector<std::uint8_t>& expected_scale,
                   const std::vector<std::uint8_t>& actual_data, const std::vector<std::uint8_t>& actual_scale);

// The class of block (group, column_block) of `input` whose E8M0 is `e8m0`.
BlockClass classify_block(const QuantizeConfig& config, const std::vector<std::uint16_t>& input, std::size_t group,
                          std::size_t column_block, std::uint8_t e8m0);
// The class of one input element in a block whose E8M0 is `e8m0`.
ElementClass classify_element(const QuantizeConfig& config, std::uint16_t input_bits, std::uint8_t e8m0);

}  // namespace mxconform
