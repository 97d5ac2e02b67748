#pragma once
// The reference: the whole QuantizeMx path of docs/contract.md in exact arithmetic. Every value is
// an exact rational (Boost.Multiprecision); formats are decoded from their definitions and
// rounding compares exact values. Slow on purpose and shares no numeric code with impl/.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <boost/multiprecision/cpp_int.hpp>

#include "mxconform/formats.h"
#include "mxconform/subject.h"
#include "mxconform/quantize_config.h"

namespace mxconform::oracle {

using Rational = boost::multiprecision::cpp_rational;

// A value of some binary format, exactly: a sign, and a magnitude or a special.
struct Value {
  enum class Kind { kFinite, kInf, kNan };
  Kind kind = Kind::kFinite;
  bool negative = false;
  Rational magnitude = 0;  // >= 0; meaningful for kFinite only

  bool is_nan() const { return kind == Kind::kNan; }
  bool is_inf() const { return kind == Kind::kInf; }
  bool is_finite() const { return kind == Kind::kFinite; }
};

// The value a code of `format` denotes, from the definition: sign, exponent field, mantissa,
// subnormals at exponent field 0, and the format's special-value policy.
Value decode(const FormatInfo& format, std::uint32_t code);

// floor(log2(r)) for r > 0.
int floor_log2(const Rational& r);

// The fp32 exponent field a value would have (docs/contract.md step 2): from its binade, 0 for zero
// and for magnitudes below 2^-126, 255 for Inf and NaN.
int fp32_exponent_field(const Value& value);

// The unbiased exponent of the largest finite value of `format`, found from its codes.
int emax_of(const FormatInfo& format);

// E8M0 of a block whose largest exponent field is `max_field` (docs/contract.md step 3).
int block_e8m0(int max_field, const QuantizeConfig& config);

// The prescale multiplier: the fp32 whose exponent field is 254 - e8m0 and mantissa 0, decoded.
// A field of 0 denotes +0.0 (e8m0 = 254, docs/contract.md step 4).
Value multiplier(int e8m0);

// Correct rounding of a real number to `format` (an IEEE format): nearest, ties to even
// significand, subnormals kept, overflow to Inf.
Value round_to_ieee(bool negative, const Rational& magnitude, const FormatInfo& format);

// The prescale: fp32(x * m) with the x86 SSE conventions for specials (NaN keeps its sign,
// Inf * 0 is the default NaN with the sign set).
Value prescale(const Value& x, const Value& m);

// The narrow of docs/contract.md step 5: the nearest point of the element grid, ties to the even
// code, saturating; NaN by the format's rule and the FP8 NaN policy. Returns the element code.
std::uint32_t narrow(const Value& y, ElementKind element, Fp8NanPolicy nan_policy);

// Where element k's nibble goes: the pair of nibbles holding k moves to the mirrored pair of its
// window of 2*stride nibbles; stride 0 keeps it in place.
std::size_t nibble_position(std::size_t k, std::size_t stride);

// Step 6: the P*F element codes (partition-major) into the data bytes: one a byte for FP8; for FP4
// two a byte, nibble positions by the lane remap, position r high when (r & 1) == parity.
void pack(const QuantizeConfig& config, const std::vector<std::uint32_t>& codes, std::uint8_t* data);

// The physical scale row of logical row i.
std::size_t physical_scale_row(std::size_t i);

// The whole path on P*F raw input elements; buffer sizes as Subject::quantize.
void quantize(const QuantizeConfig& config, const std::uint16_t* input, std::uint8_t* data,
              std::uint8_t* scale);
void dequantize(const QuantizeConfig& config, const std::uint8_t* data, const std::uint8_t* scale,
                float* output);

// The oracle as a registered implementation, named "oracle".
const Subject& backend();

}  // namespace mxconform::oracle
