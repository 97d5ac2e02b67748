#pragma once
// Profiles: named MX quantize contracts. The Neuron QuantizeMx path of docs/contract.md, generalised
// along the axes on which the MX quantizers in use differ (docs/contract.md, "Profiles"): the scale
// rule, the zero block, NaN/Inf in a block, element rounding, overflow, the FP4 NaN code, the block
// geometry and which knobs the profile leaves open. `neuron` is the default and the only profile
// the fast built-ins implement; the oracle computes every profile.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mxconform {

// The ids are the C ABI's enum mxc_profile values (include/mxconform/backend.h).
enum class ProfileId : std::uint32_t {
  kNeuron = 0,                 // the seed's QuantizeMx (docs/contract.md steps 1-7)
  kNkiGolden = 1,              // AWS nki-library's golden of nisa.quantize_mx
  kNkiGoldenKernel = 2,        // its alternative-EMAX kernel reference: unclipped scale as uint8
  kOcpFloor = 3,               // OCP MX v1.0 section 6.3 as torchao's FLOOR mode computes it
  kTorchaoRceil = 4,           // torchao's RCEIL mode
  kTransformerEngineMxfp8 = 5, // NVIDIA TransformerEngine MXFP8
  kMicroxcaling = 6,           // microsoft/microxcaling, round="nearest"
  kTorchaoCeil = 7,            // torchao's CEIL mode
  kTorchaoEven = 8,            // torchao's EVEN mode
};
inline constexpr std::uint32_t kProfileCount = 9;

// Block geometry: which elements share one E8M0 byte. The ids are enum mxc_block_shape values.
enum class BlockShape : std::uint32_t {
  k8x4 = 0,   // 8 partitions x 4 columns (Neuron); scale tensor [P/8][F/4]
  k1x32 = 1,  // 32 consecutive elements along the last axis; scale tensor [P][F/32]
  k32x1 = 2,  // 32 partitions of one column; scale tensor [P/32][F]
};
inline constexpr std::uint32_t kBlockShapeCount = 3;

struct BlockExtent {
  std::size_t rows;  // partitions per block
  std::size_t cols;  // columns per block
};
BlockExtent extent(BlockShape shape);

// How the E8M0 byte of a block follows from its elements. amax = max |x| over the block; "field" is
// the fp32 exponent field of an element ((bits >> 23) & 0xFF, 255 for Inf and NaN).
enum class ScaleRule {
  kNeuronField,        // max field - emaxBias, then >= 0 (CLAMP-LOW), then >= 1 (ZERO-FLOOR)
  kGoldenField,        // clip(max field - emaxBias, 0, 255); data divided by the UNCLAMPED 2^(field - emaxBias - 127)
  kGoldenUnclipped,    // (max field - emaxBias) as an integer stored mod 256; data as kGoldenField
  kFloor,              // field(amax) - 127 - emax, clamped to [-127, 128], biased by 127
  kCeil,               // kFloor + 1 when amax's mantissa is non-zero
  kEven,               // kFloor of amax rounded at the element's mantissa width (bits + (1 << (22 - mbits)), mantissa cleared)
  kRceil,              // amax * RN32(1 / max) rounded up to a power of two; no saturation (2^127 < d -> 0xFF)
  kRceilSatfinite,     // as kRceil, but a finite value never rounds past 0xFE, and Inf gives 0xFE
  kLog2Floor,          // floor(log2(amax, or 2^-126 for a zero block)) - emax, at least -127
};

// What a NaN or Inf among the block's elements does.
enum class SpecialsRule {
  kFieldWins,         // field 255 is the block max like any other (Neuron, the nki golden)
  kBlockNan,          // any NaN or Inf: scale 0xFF and every element the NaN code (torchao, microxcaling)
  kNanDroppedInfMax,  // amax ignores NaN (fmaxf); Inf gives 0xFE; elements cast with satfinite (TransformerEngine)
};

enum class ElementRounding { kNearestEven, kTiesAway, kTiesTowardZero };
enum class Overflow { kSaturate, kNonSaturating };  // past the largest finite: max code, or NaN/Inf
enum class Fp4NanCode { kSignedZero };               // FP4 has no NaN; what a NaN element becomes

struct Profile {
  ProfileId id;
  std::string_view name;         // the --profile spelling
  std::string_view summary;      // one line
  std::string_view source;       // the public file it was read from
  ScaleRule scale_rule;
  SpecialsRule specials;
  ElementRounding rounding;
  Overflow overflow;
  Fp4NanCode fp4_nan;
  int zero_block_e8m0;           // the E8M0 byte of an all-zero block (a fact of the scale rule)
  bool fp4;                      // FP4 outputs are part of the profile
  // The knob values the profile admits, as masks over the enum values (bit i: value i).
  std::uint32_t emax_modes;
  std::uint32_t fp8_nan_policies;
  std::uint32_t scale_layouts;
  std::uint32_t block_shapes;
  bool lane_knobs;               // FP4 lane stride and parity free; else stride 0, parity 1 (byte = c0 | c1 << 4)
  BlockShape default_shape;
  // The sign of an input -0's FP8 code is left open (0x00 and 0x80 both conform): the quantizer's
  // own kernels disagree on it (TransformerEngine; docs/contract.md, "Scale rule").
  bool negative_zero_sign_open = false;
};

// Every profile, in id order.
const std::vector<Profile>& profiles();
const Profile& profile(ProfileId id);
// By --profile name; throws Error listing the names.
ProfileId parse_profile(std::string_view text);
std::string_view name(ProfileId id);
std::string_view name(BlockShape shape);
BlockShape parse_block_shape(std::string_view text);
std::string_view name(ScaleRule rule);
std::string_view name(SpecialsRule rule);
std::string_view name(ElementRounding rounding);
std::string_view name(Overflow overflow);

}  // namespace mxconform
