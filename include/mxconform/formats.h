#pragma once
// Binary floating-point formats as traits. Every constant derives from the exponent and
// mantissa widths and the format's special-value policy; only the deviations are spelled out.
// The numeric facts the seed states are pinned by static_asserts at the bottom of this file.
#include <cstdint>

namespace mxconform {

// What the all-ones exponent field means.
enum class Specials {
  kIeee,           // all-ones exponent: Inf (mantissa 0) or NaN (float32, bfloat16, float16, e5m2)
  kFiniteAndNan,   // "fn": only the all-ones magnitude code is NaN, no Inf (e4m3fn)
  kFiniteOnly,     // every code is a finite number (e2m1)
};

// A runtime description of a format: what algorithms receive once a dtype has been chosen.
struct FormatInfo {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  Specials specials;
  int bits;                   // 1 + exponent_bits + mantissa_bits
  std::uint32_t max_code;     // the positive code of the largest finite value
  int emax;                   // unbiased exponent of the largest finite value
  std::uint32_t sign_mask;    // 1 << (bits - 1)
  std::uint32_t magnitude_mask;
  bool has_inf;
  bool has_nan;
  std::uint32_t nan_code;     // the canonical NaN (positive); meaningful only when has_nan
  double max_value;           // the largest finite value
};

template <int ExponentBits, int MantissaBits, Specials kSpecialValues>
struct FloatFormat {
  static constexpr int kExponentBits = ExponentBits;
  static constexpr int kMantissaBits = MantissaBits;
  static constexpr int kBits = 1 + ExponentBits + MantissaBits;
  static constexpr Specials kSpecials = kSpecialValues;
  static constexpr int kBias = (1 << (ExponentBits - 1)) - 1;

  static constexpr std::uint32_t kSignMask = 1u << (kBits - 1);
  static constexpr std::uint32_t kMagnitudeMask = kSignMask - 1;
  static constexpr std::uint32_t kMantissaMask = (1u << MantissaBits) - 1;
  static constexpr std::uint32_t kExponentFieldMax = (1u << ExponentBits) - 1;
  static constexpr std::uint32_t kExponentMask = kExponentFieldMax << MantissaBits;

  // The largest finite magnitude code: below the all-ones exponent for IEEE formats, one
  // below the all-ones magnitude for "fn" formats, the all-ones magnitude for finite-only ones.
  static constexpr std::uint32_t kMaxCode =
      kSpecials == Specials::kIeee           ? kExponentMask - 1
      : kSpecials == Specials::kFiniteAndNan ? kMagnitudeMask - 1
                                             : kMagnitudeMask;
  static constexpr int kEmax = static_cast<int>(kMaxCode >> MantissaBits) - kBias;
  static constexpr int kEmin = 1 - kBias;  // exponent of the smallest normal

  static constexpr bool kHasInf = kSpecials == Specials::kIeee;
  static constexpr bool kHasNan = kSpecials != Specials::kFiniteOnly;
  // The canonical NaN mxconform writes: the all-ones magnitude (valid for IEEE and "fn").
  static constexpr std::uint32_t kNanCode = kMagnitudeMask;
  static constexpr std::uint32_t kInfCode = kExponentMask;  // meaningful only when kHasInf

  // The largest finite value, as a double (exact for every format here).
  static constexpr double kMaxValue = [] {
    double significand = 1.0 + static_cast<double>(kMaxCode & kMantissaMask) / (1u << MantissaBits);
    double value = significand;
    for (int e = 0; e < kEmax; ++e) value *= 2.0;
    return value;
  }();

  static constexpr FormatInfo info() {
    return FormatInfo{kExponentBits, kMantissaBits, kBias,  kSpecials, kBits,   kMaxCode,
                      kEmax,         kSignMask,     kMagnitudeMask, kHasInf, kHasNan, kNanCode, kMaxValue};
  }
};

using Float32 = FloatFormat<8, 23, Specials::kIeee>;
using Bfloat16 = FloatFormat<8, 7, Specials::kIeee>;
using Float16 = FloatFormat<5, 10, Specials::kIeee>;
using E2M1 = FloatFormat<2, 1, Specials::kFiniteOnly>;
using E4M3FN = FloatFormat<4, 3, Specials::kFiniteAndNan>;
using E5M2 = FloatFormat<5, 2, Specials::kIeee>;

// E8M0: an unsigned power-of-two exponent byte, value 2^(code - 127); 0xFF is NaN.
struct E8M0 {
  static constexpr int kBits = 8;
  static constexpr int kBias = 127;
  static constexpr std::uint32_t kNanCode = 0xFF;
};

// The contract's numeric facts (docs/contract.md, "Output dtypes" and step 5).
static_assert(E2M1::kMaxValue == 6.0);
static_assert(E4M3FN::kMaxValue == 448.0);
static_assert(E5M2::kMaxValue == 57344.0);
static_assert(E2M1::kMaxCode == 0b0'11'1);
static_assert(E4M3FN::kMaxCode == 0b0'1111'110);
static_assert(E5M2::kMaxCode == 0b0'11110'11);
static_assert(E2M1::kEmax == 2 && E4M3FN::kEmax == 8 && E5M2::kEmax == 15);
static_assert(E2M1::kBias == 1 && E4M3FN::kBias == 7 && E5M2::kBias == 15);
static_assert(E4M3FN::kNanCode == 0b0'1111'111 && E5M2::kNanCode == 0b0'11111'11);
static_assert(E5M2::kInfCode == 0b0'11111'00);
static_assert(Float32::kBias == 127 && Bfloat16::kBias == 127 && Float16::kBias == 15);
static_assert(Float16::kMaxValue == 65504.0);
static_assert(E8M0::kBias == Float32::kBias);
static_assert(E4M3FN::info().nan_code == 0b0'1111'111 && E2M1::info().sign_mask == 0b1'00'0 && !E2M1::info().has_nan);
static_assert(E5M2::info().max_value == 57344.0 && E5M2::info().has_inf && !E4M3FN::info().has_inf);

}  // namespace mxconform
