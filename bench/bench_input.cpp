#include "bench_input.h"

#include <cmath>
#include <cstring>

#include "mxconform/formats.h"

namespace mxconform::bench {
namespace {

constexpr std::uint64_t kSeed = 0x6d78'636f'6e66'6f72;  // "mxconfor"
constexpr double kPartitionLog2ScaleSpan = 4.0;         // scales 2^-4 .. 2^4
constexpr std::uint64_t kOutlierOneIn = 256;
constexpr double kOutlierMinFactor = 16.0;
constexpr double kOutlierMaxFactor = 64.0;
constexpr double kTwoPi = 6.283185307179586476925286766559;

// SplitMix64: small, fast, and the same sequence on every platform (unlike the standard
// library's distributions).
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e37'79b9'7f4a'7c15);
    z = (z ^ (z >> 30)) * 0xbf58'476d'1ce4'e5b9;
    z = (z ^ (z >> 27)) * 0x94d0'49bb'1331'11eb;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

// Standard normal deviates by the Box-Muller transform, two per pair of uniforms.
class Gaussian {
 public:
  explicit Gaussian(SplitMix64& random) : random_(random) {}
  double next() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double radius = std::sqrt(-2.0 * std::log(1.0 - random_.uniform()));  // 1 - u is in (0, 1]
    const double angle = kTwoPi * random_.uniform();
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return radius * std::cos(angle);
  }

 private:
  SplitMix64& random_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

std::uint32_t float_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

}  // namespace

std::uint16_t bfloat16_bits(float value) {
  return static_cast<std::uint16_t>(float_bits(value) >> (Float32::kBits - Bfloat16::kBits));
}

std::uint16_t float16_bits(float value) {
  constexpr int kDroppedBits = Float32::kMantissaBits - Float16::kMantissaBits;
  constexpr std::uint32_t kDroppedMask = (1u << kDroppedBits) - 1;
  constexpr std::uint32_t kHalfway = 1u << (kDroppedBits - 1);
  constexpr std::uint32_t kRebias = static_cast<std::uint32_t>(Float32::kBias - Float16::kBias)
                                    << Float32::kMantissaBits;
  // float32 magnitudes from here up round to Inf: the midpoint between the largest float16 and
  // 2^16 (65520), whose tie goes up because the largest float16's mantissa is odd.
  constexpr std::uint32_t kOverflowFrom = (Float16::kMaxCode << kDroppedBits) + kRebias + kHalfway;
  // float32 magnitudes below the smallest float16 normal, 2^emin.
  constexpr std::uint32_t kNormalFrom = static_cast<std::uint32_t>(Float32::kBias + Float16::kEmin)
                                        << Float32::kMantissaBits;
  constexpr std::uint32_t kQuietBit = 1u << (Float16::kMantissaBits - 1);
  static_assert(kOverflowFrom == 0x477F'F000u);  // 65520.0f
  static_assert(kNormalFrom == 0x3880'0000u);    // 2^-14

  const std::uint32_t bits = float_bits(value);
  const auto sign = static_cast<std::uint16_t>((bits >> (Float32::kBits - Float16::kBits)) & Float16::kSignMask);
  const std::uint32_t magnitude = bits & Float32::kMagnitudeMask;
  if (magnitude > Float32::kExponentMask) {  // NaN
    return static_cast<std::uint16_t>(sign | Float16::kExponentMask | kQuietBit |
                                      ((magnitude & Float32::kMantissaMask) >> kDroppedBits));
  }
  if (magnitude >= kOverflowFrom) return static_cast<std::uint16_t>(sign | Float16::kInfCode);
  if (magnitude < kNormalFrom) {
    // Subnormal codes count units of 2^(emin - mantissa bits); the scaling is exact and
    // nearbyint rounds ties to even. A result of 2^mantissa_bits is the smallest normal's code.
    const double units = std::ldexp(static_cast<double>(std::fabs(value)), Float16::kMantissaBits - Float16::kEmin);
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(std::nearbyint(units)));
  }
  const std::uint32_t rebiased = magnitude - kRebias;
  std::uint32_t code = rebiased >> kDroppedBits;
  const std::uint32_t dropped = rebiased & kDroppedMask;
  if (dropped > kHalfway || (dropped == kHalfway && (code & 1u) != 0)) ++code;  // a carry bumps the exponent
  return static_cast<std::uint16_t>(sign | code);
}

AlignedBuffer<std::uint16_t> make_input(const BenchSize& size, InputDtype dtype) {
  AlignedBuffer<std::uint16_t> input(size.elements());
  SplitMix64 random(kSeed);
  Gaussian gaussian(random);
  std::uint16_t* out = input.data();
  for (std::size_t p = 0; p < size.partitions; ++p) {
    const double partition_scale = std::exp2(kPartitionLog2ScaleSpan * (2.0 * random.uniform() - 1.0));
    for (std::size_t f = 0; f < size.free; ++f) {
      double value = gaussian.next() * partition_scale;
      if (random.next() % kOutlierOneIn == 0) {
        value *= kOutlierMinFactor + (kOutlierMaxFactor - kOutlierMinFactor) * random.uniform();
      }
      const auto narrow = static_cast<float>(value);
      *out++ = dtype == InputDtype::kBfloat16 ? bfloat16_bits(narrow) : float16_bits(narrow);
    }
  }
  return input;
}

}  // namespace mxconform::bench
