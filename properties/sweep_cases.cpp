#include "sweep_cases.h"

#include <algorithm>
#include <random>

#include "mxconform/dtype.h"
#include "mxconform/formats.h"
#include "mxconform/profile.h"

namespace mxconform::properties {
namespace {

// Input bits with this sign, exponent field and mantissa, in the input dtype's format.
std::uint16_t input_bits(const FormatInfo& format, bool negative, std::uint32_t field, std::uint32_t mantissa) {
  const std::uint32_t mantissa_mask = (1u << format.mantissa_bits) - 1;
  return static_cast<std::uint16_t>((negative ? format.sign_mask : 0u) | field << format.mantissa_bits |
                                    (mantissa & mantissa_mask));
}

// The largest exponent field of a finite value: all ones is Inf/NaN.
std::uint32_t largest_finite_field(const FormatInfo& format) { return (1u << format.exponent_bits) - 2; }

// An element at most `field`: the block's largest magnitude lowered by 0 to 12 binades (a
// quarter of them denormal or zero once the field reaches 0), any sign and mantissa.
std::uint16_t element_below(const FormatInfo& format, std::uint32_t field, std::mt19937_64& random) {
  constexpr std::uint32_t kSpread = 12;
  const std::uint32_t drop = static_cast<std::uint32_t>(random() % (kSpread + 1));
  const std::uint32_t lowered = field > drop ? field - drop : 0;
  return input_bits(format, (random() & 1) != 0, lowered, static_cast<std::uint32_t>(random()));
}

// The binades of nonzero finite magnitudes, lowest first: the subnormal ones (exponent field 0,
// leading mantissa bit 0 .. mantissa_bits-1), then one per exponent field 1..largest finite.
// float16's subnormals widen to fp32 normals of ten different exponents, so each is a binade of
// its own for the scale rule; bfloat16's all widen to fp32 field 0.
std::size_t binades(const FormatInfo& format) {
  return static_cast<std::size_t>(format.mantissa_bits) + largest_finite_field(format);
}

// A magnitude in binade `b` with random lower bits, and a random sign.
std::uint16_t element_in_binade(const FormatInfo& format, std::size_t b, std::mt19937_64& random) {
  const auto bits = static_cast<std::uint32_t>(random());
  const auto mantissa_bits = static_cast<std::size_t>(format.mantissa_bits);
  if (b < mantissa_bits) {
    const std::uint32_t leading = 1u << b;
    return input_bits(format, (random() & 1) != 0, 0, leading | (bits & (leading - 1)));
  }
  return input_bits(format, (random() & 1) != 0, static_cast<std::uint32_t>(b - mantissa_bits + 1), bits);
}

// Sets the block (block_row, block_col) of `c`: its first element lies in binade `b`, the others
// at most as high (element_below), so the block's largest magnitude is in binade `b`.
void fill_block(QuantizeCase& c, std::size_t block_row, std::size_t block_col, std::size_t b,
                std::mt19937_64& random) {
  const FormatInfo format = input_format(c.config.input);
  const BlockExtent block = extent(c.config.block_shape);
  const std::uint16_t largest = element_in_binade(format, b, random);
  const std::uint32_t field = (largest & ~format.sign_mask) >> format.mantissa_bits;
  for (std::size_t r = 0; r < block.rows; ++r) {
    for (std::size_t col = 0; col < block.cols; ++col) {
      const std::size_t k = (block_row * block.rows + r) * c.config.free + block_col * block.cols + col;
      std::uint16_t bits = r == 0 && col == 0 ? largest : element_below(format, field, random);
      // Below the largest in magnitude: a subnormal neighbour keeps fewer mantissa bits.
      if ((bits & ~format.sign_mask) > (largest & ~format.sign_mask)) bits = static_cast<std::uint16_t>(bits & format.sign_mask);
      c.input[k] = bits;
    }
  }
}

}  // namespace

QuantizeCase e8m0_sweep_case(const QuantizeConfig& config, std::uint64_t seed) {
  const FormatInfo format = input_format(config.input);
  const BlockExtent block = extent(config.block_shape);
  const std::size_t count = binades(format);
  // The blocks side by side along the free axis, one block row (8x4 and 1x32: one row of blocks;
  // 32x1: 32 partitions), padded to a multiple of 4 columns for the x4 dtypes.
  QuantizeCase c;
  c.config = config;
  c.config.partitions = std::max<std::size_t>(block.rows, 8);
  const std::size_t columns = count * block.cols;
  c.config.free = (columns + 3) / 4 * 4;
  c.config.free = (c.config.free + block.cols - 1) / block.cols * block.cols;
  c.input.assign(c.config.partitions * c.config.free, 0);
  std::mt19937_64 random(seed);
  const std::size_t block_rows = c.config.partitions / block.rows;
  const std::size_t block_cols = c.config.free / block.cols;
  for (std::size_t br = 0; br < block_rows; ++br) {
    for (std::size_t bc = 0; bc < block_cols; ++bc) {
      // Row br starts the sweep at a different binade, so each block row meets every binade.
      fill_block(c, br, bc, (bc + br * 37) % count, random);
    }
  }
  return c;
}

QuantizeCase large_tensor_case(const QuantizeConfig& config, std::uint64_t seed) {
  constexpr std::size_t kPartitions = 8 * 41;  // 41 block rows of 8x4: slot groups 0..10
  constexpr std::size_t kFree = 2 * 32 + 4;    // two 32-column stretches and a 4-column tail
  const FormatInfo format = input_format(config.input);
  const BlockExtent block = extent(config.block_shape);
  QuantizeCase c;
  c.config = config;
  c.config.partitions = (kPartitions + block.rows - 1) / block.rows * block.rows;
  c.config.free = (kFree + block.cols - 1) / block.cols * block.cols;
  c.input.assign(c.config.partitions * c.config.free, 0);
  std::mt19937_64 random(seed);
  const std::size_t count = binades(format);
  for (std::size_t br = 0; br < c.config.partitions / block.rows; ++br) {
    for (std::size_t bc = 0; bc < c.config.free / block.cols; ++bc) {
      fill_block(c, br, bc, random() % count, random);
    }
  }
  return c;
}

}  // namespace mxconform::properties
