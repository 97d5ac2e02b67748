#pragma once
// Blocks of 32 input elements aimed at the places of the MX path where implementations go wrong:
// - aimed blocks: the maximum is placed to give a chosen E8M0 (E8M0 127, the ZERO-FLOOR, CLAMP-LOW,
//   E8M0 1 and 2, the largest the input dtype allows, Inf/NaN), the other elements on, and one unit
//   either side of, every rounding tie and the saturation boundary of the output grid at that
//   scale, in its subnormal band and far below it (flushed to zero);
// - TestFloat-style blocks (element_gen.h), zero blocks, and blocks of input subnormals (fp32
//   denormals from bfloat16, fp32 normals from float16);
// - any element of the first two kinds may be Inf or NaN, a zero block's anchor element too (the
//   block of zeros and one NaN or Inf, by anchor_point % 3), and every element has either sign.
// A block is generated as a recipe of small indices and materialized against a configuration, so
// shrinking moves towards index 0 everywhere: zeros, then +-1 and powers of two, then the aimed
// kind at E8M0 127, no specials, no nudges, positive signs.
#include <rapidcheck.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "mxconform/quantize_config.h"

namespace mxconform::properties {

enum class BlockKind : std::uint8_t { kAimed, kTestFloat, kSubnormal, kZero };
enum class Special : std::uint8_t { kNone, kInf, kNan };

struct ElementChoice {
  std::uint16_t point = 0;  // index into the block kind's table of magnitudes, modulo its size; 0 is zero
  std::int8_t nudge = 0;    // -1, 0 or +1 units in the input's last place
  bool negative = false;
  Special special = Special::kNone;  // replaces the point (aimed and TestFloat blocks)
};

struct BlockRecipe {
  BlockKind kind = BlockKind::kAimed;
  std::uint8_t max_field = 0;      // aimed: index into the table of block maxima (aimed_max_field)
  std::uint8_t anchor = 0;         // aimed: position (0..31) of the element that holds the maximum;
                                   // zero: position of its one NaN or Inf, if any
  std::uint16_t anchor_point = 0;  // aimed: index into the table of maxima with that field, modulo its
                                   // size; zero: % 3 gives none (0), a NaN (1) or an Inf (2)
  std::array<ElementChoice, kBlockSize> elements{};
};
bool operator==(const ElementChoice& lhs, const ElementChoice& rhs);
bool operator==(const BlockRecipe& lhs, const BlockRecipe& rhs);

rc::Gen<BlockRecipe> block_recipes();

// Element k of a block sits at row k / 4, column k % 4 of the block.
using BlockBits = std::array<std::uint16_t, kBlockSize>;
BlockBits materialize(const BlockRecipe& recipe, const QuantizeConfig& config);

// The fp32 exponent field of an aimed block's maximum for recipe index `index` (taken modulo the
// table). The table starts at E8M0 127 (prescale x 1), then the ZERO-FLOOR (field == emaxBias),
// E8M0 1 unclamped, CLAMP-LOW, an all-denormal block, E8M0 2, the largest finite field, Inf/NaN,
// and fields around the prescale band; each clamped to what the input dtype can reach.
int aimed_max_field(std::size_t index, const QuantizeConfig& config);

}  // namespace mxconform::properties
