#pragma once
// One quantize call as the property suite sees it: a configuration and its input tensor, and the
// outputs of running it through an implementation.
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <vector>

#include "mxconform/formats.h"
#include "mxconform/subject.h"
#include "mxconform/quantize_config.h"

namespace mxconform::properties {

struct QuantizeCase {
  QuantizeConfig config;             // validated
  std::vector<std::uint16_t> input;  // P*F raw input bits, row-major
};
bool operator==(const QuantizeCase& lhs, const QuantizeCase& rhs);

// What one quantize call wrote. The buffers start filled with kUnwrittenData and kUnwrittenScale,
// so a byte the implementation never writes shows up (scale rows that no slot names must keep it).
struct Outputs {
  std::vector<std::uint8_t> data;
  std::vector<std::uint8_t> scale;
};
bool operator==(const Outputs& lhs, const Outputs& rhs);
inline constexpr std::uint8_t kUnwrittenData = 0x5A;
inline constexpr std::uint8_t kUnwrittenScale = 0xEE;

// docs/contract.md step 4: at this E8M0 the multiplier's bits are 0, so M = +0 (FP4, emax-1, Inf/NaN
// blocks): finite elements become zeros and Inf * +0 is the default NaN.
inline constexpr std::uint8_t kZeroMultiplierE8m0 = 2 * Float32::kBias;

Outputs quantize(const Subject& subject, const QuantizeCase& c);

// One element code per element, row-major: the data bytes for FP8; for FP4 the nibbles unpacked
// with the configured lane stride and parity (impl/fp4_pack.h's unpack_fp4).
std::vector<std::uint8_t> element_codes(const QuantizeConfig& config, const std::vector<std::uint8_t>& data);

// Writes element k's code into the data bytes: the byte for FP8; for FP4 the nibble that
// docs/contract.md step 6 gives it (an independent reading of the packing, not impl/'s).
void set_code(const QuantizeConfig& config, std::vector<std::uint8_t>& data, std::size_t k, std::uint8_t code);

// The E8M0 byte of block (g, c) (partition group g, column block c) in a scale buffer of the
// configured layout.
std::uint8_t block_scale(const QuantizeConfig& config, const std::vector<std::uint8_t>& scale, std::size_t g,
                         std::size_t c);

void set_block_scale(const QuantizeConfig& config, std::vector<std::uint8_t>& scale, std::size_t g, std::size_t c,
                     std::uint8_t e8m0);

// The sign bit of an element code of the configured output dtype: 0x08 for FP4, 0x80 for FP8.
std::uint8_t code_sign_bit(const QuantizeConfig& config);

// Row-major index of element (row, col) of block (g, c) at position k (0..31, row k / 4, column k % 4).
std::size_t element_index(const QuantizeConfig& config, std::size_t g, std::size_t c, std::size_t k);

// "PxF, N blocks" and the configuration: what RapidCheck prints for a counterexample. The full
// case is in the repro the property suite prints (repro.h).
void showValue(const QuantizeCase& c, std::ostream& out);

}  // namespace mxconform::properties
