#include "mxconform/profile.h"

#include "mxconform/error.h"

namespace mxconform {
namespace {

constexpr std::uint32_t kFirst = 0b01;   // the default value of a two-valued knob
constexpr std::uint32_t kSecond = 0b10;  // the alternative value
constexpr std::uint32_t kBoth = kFirst | kSecond;
constexpr std::uint32_t bit(BlockShape shape) { return 1u << static_cast<std::uint32_t>(shape); }

// One row per profile; the facts and their sources are in docs/contract.md, "Profiles".
const std::vector<Profile> kProfiles = {
    {ProfileId::kNeuron, "neuron", "Neuron QuantizeMx as the seed reads it (the default)",
     "docs/contract.md steps 1-7", ScaleRule::kNeuronField, SpecialsRule::kFieldWins, ElementRounding::kNearestEven,
     Overflow::kSaturate, Fp4NanCode::kSignedZero, 1, true, kBoth, kBoth, kBoth, bit(BlockShape::k8x4), true,
     BlockShape::k8x4},
    {ProfileId::kNkiGolden, "nki-golden", "AWS nki-library golden of nisa.quantize_mx: no ZERO-FLOOR, unclamped divisor",
     "aws-neuron/nki-library src/nkilib_src/nkilib/core/utils/mx_torch_common.py", ScaleRule::kGoldenField,
     SpecialsRule::kFieldWins, ElementRounding::kNearestEven, Overflow::kSaturate, Fp4NanCode::kSignedZero, 0, false,
     kBoth, kFirst, kBoth, bit(BlockShape::k8x4), false, BlockShape::k8x4},
    {ProfileId::kNkiGoldenKernel, "nki-golden-kernel",
     "nki-library alternative-EMAX kernel reference: EMAX-1, scale stored as uint8 without a clip",
     "aws-neuron/nki-library src/nkilib_src/nkilib/core/utils/mx_torch_common.py", ScaleRule::kGoldenUnclipped,
     SpecialsRule::kFieldWins, ElementRounding::kNearestEven, Overflow::kSaturate, Fp4NanCode::kSignedZero, -1, false,
     kSecond, kFirst, kBoth, bit(BlockShape::k8x4), false, BlockShape::k8x4},
    {ProfileId::kOcpFloor, "ocp-floor", "OCP MX v1.0 6.3 floor rule as torchao's FLOOR mode computes it",
     "pytorch/ao torchao/prototype/mx_formats/mx_tensor.py", ScaleRule::kFloor, SpecialsRule::kBlockNan,
     ElementRounding::kNearestEven, Overflow::kSaturate, Fp4NanCode::kSignedZero, 0, true, kFirst, kFirst, kSecond,
     bit(BlockShape::k1x32), false, BlockShape::k1x32},
    {ProfileId::kTorchaoRceil, "torchao-rceil", "torchao RCEIL: amax / max rounded up to a power of two, no saturation",
     "pytorch/ao torchao/prototype/mx_formats/mx_tensor.py", ScaleRule::kRceil, SpecialsRule::kBlockNan,
     ElementRounding::kNearestEven, Overflow::kSaturate, Fp4NanCode::kSignedZero, 0, true, kFirst, kFirst, kSecond,
     bit(BlockShape::k1x32), false, BlockShape::k1x32},
    {ProfileId::kTransformerEngineMxfp8, "transformer-engine-mxfp8",
     "NVIDIA TransformerEngine MXFP8: RCEIL with satfinite, NaN dropped from amax, Inf -> 0xFE",
     "NVIDIA/TransformerEngine transformer_engine/common/util/ptx_arch_spec.cuh", ScaleRule::kRceilSatfinite,
     SpecialsRule::kNanDroppedInfMax, ElementRounding::kNearestEven, Overflow::kSaturate, Fp4NanCode::kSignedZero, 0,
     false, kFirst, kFirst, kSecond, bit(BlockShape::k1x32) | bit(BlockShape::k32x1), false, BlockShape::k1x32, true},
    {ProfileId::kMicroxcaling, "microxcaling", "microsoft/microxcaling: floor(log2 amax), elements ties away from zero",
     "microsoft/microxcaling mx/mx_ops.py", ScaleRule::kLog2Floor, SpecialsRule::kBlockNan, ElementRounding::kTiesAway,
     Overflow::kSaturate, Fp4NanCode::kSignedZero, 0, true, kFirst, kFirst, kSecond,
     bit(BlockShape::k1x32) | bit(BlockShape::k32x1), false, BlockShape::k1x32},
    {ProfileId::kTorchaoCeil, "torchao-ceil", "torchao CEIL: the FLOOR exponent plus one when amax's mantissa is non-zero",
     "pytorch/ao torchao/prototype/mx_formats/mx_tensor.py", ScaleRule::kCeil, SpecialsRule::kBlockNan,
     ElementRounding::kNearestEven, Overflow::kSaturate, Fp4NanCode::kSignedZero, 0, true, kFirst, kFirst, kSecond,
     bit(BlockShape::k1x32), false, BlockShape::k1x32},
    {ProfileId::kTorchaoEven, "torchao-even", "torchao EVEN: FLOOR of amax pre-rounded at the element's mantissa width",
     "pytorch/ao torchao/prototype/mx_formats/mx_tensor.py", ScaleRule::kEven, SpecialsRule::kBlockNan,
     ElementRounding::kNearestEven, Overflow::kSaturate, Fp4NanCode::kSignedZero, 0, true, kFirst, kFirst, kSecond,
     bit(BlockShape::k1x32), false, BlockShape::k1x32},
};

}  // namespace

BlockExtent extent(BlockShape shape) {
  constexpr std::size_t kBlockElements = 32;
  switch (shape) {
    case BlockShape::k8x4: return {8, 4};
    case BlockShape::k1x32: return {1, kBlockElements};
    case BlockShape::k32x1: return {kBlockElements, 1};
  }
  throw Error("unknown block shape");
}

const std::vector<Profile>& profiles() { return kProfiles; }

const Profile& profile(ProfileId id) {
  const auto index = static_cast<std::size_t>(id);
  if (index >= kProfiles.size()) throw Error("profile id " + std::to_string(index) + ": no such profile");
  return kProfiles[index];
}

ProfileId parse_profile(std::string_view text) {
  std::string names;
  for (const Profile& p : kProfiles) {
    if (p.name == text) return p.id;
    names += (names.empty() ? "" : ", ") + std::string(p.name);
  }
  throw Error("unknown profile '" + std::string(text) + "'; expected one of " + names);
}

std::string_view name(ProfileId id) { return profile(id).name; }

std::string_view name(BlockShape shape) {
  switch (shape) {
    case BlockShape::k8x4: return "8x4";
    case BlockShape::k1x32: return "1x32";
    case BlockShape::k32x1: return "32x1";
  }
  return "?";
}

BlockShape parse_block_shape(std::string_view text) {
  if (text == "8x4") return BlockShape::k8x4;
  if (text == "1x32") return BlockShape::k1x32;
  if (text == "32x1") return BlockShape::k32x1;
  throw Error("unknown block shape '" + std::string(text) + "'; expected 8x4, 1x32 or 32x1");
}

std::string_view name(ScaleRule rule) {
  switch (rule) {
    case ScaleRule::kNeuronField: return "exponent field - emaxBias, >= 0, >= 1";
    case ScaleRule::kGoldenField: return "clip(exponent field - emaxBias, 0, 255), unclamped divisor";
    case ScaleRule::kGoldenUnclipped: return "(exponent field - emaxBias) mod 256, unclamped divisor";
    case ScaleRule::kFloor: return "floor: exponent bits of amax - emax, in [-127, 128]";
    case ScaleRule::kCeil: return "ceil: floor + 1 when amax has a mantissa";
    case ScaleRule::kEven: return "even: floor of amax rounded to the element's mantissa";
    case ScaleRule::kRceil: return "rceil: amax/max rounded up, no saturation";
    case ScaleRule::kRceilSatfinite: return "rceil satfinite: amax/max rounded up, at most 0xFE";
    case ScaleRule::kLog2Floor: return "floor(log2 amax) - emax, >= -127";
  }
  return "?";
}

std::string_view name(SpecialsRule rule) {
  switch (rule) {
    case SpecialsRule::kFieldWins: return "field 255 wins";
    case SpecialsRule::kBlockNan: return "block NaN (scale 0xFF)";
    case SpecialsRule::kNanDroppedInfMax: return "NaN dropped from amax, Inf -> 0xFE";
  }
  return "?";
}

std::string_view name(ElementRounding rounding) {
  switch (rounding) {
    case ElementRounding::kNearestEven: return "nearest, ties to even";
    case ElementRounding::kTiesAway: return "nearest, ties away from zero";
    case ElementRounding::kTiesTowardZero: return "nearest, ties toward zero";
  }
  return "?";
}

std::string_view name(Overflow overflow) {
  return overflow == Overflow::kSaturate ? "saturate" : "non-saturating";
}

}  // namespace mxconform
