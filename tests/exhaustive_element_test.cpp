// The element path, exhaustively: for each input dtype, element format, EMAX mode and FP8 NaN
// policy, every 16-bit input pattern at every E8M0 a block could give it, through each compiled
// implementation's real kernel, against the oracle's narrow of the prescaled value.
//
// A block gets E8M0 e from an anchor element whose exponent field is e + emaxBias; the other 31
// elements of the block are every pattern whose field does not exceed the anchor's. The prescaled
// value y = fp32(x * M) is the x86 multiply decisions.md step 4 defines, so the oracle is asked
// once per distinct y (cached); the oracle's own exact prescale is checked against that multiply
// on a sample of E8M0 values.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>

#include "mxconform/registry.h"
#include "oracle.h"

namespace mxconform {
namespace {

float from_bits(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

std::uint32_t to_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// The input's value as a float, from the formats' definitions (exact: both fit in fp32).
float input_value(InputDtype dtype, std::uint16_t bits) {
  if (dtype == InputDtype::kBfloat16) return from_bits(static_cast<std::uint32_t>(bits) << 16);
  const int sign = bits >> 15;
  const int exponent = (bits >> 10) & 0x1F;
  const int mantissa = bits & 0x3FF;
  float magnitude;
  if (exponent == 0x1F) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25);
  }
  return sign ? -magnitude : magnitude;
}

int field_of(InputDtype dtype, std::uint16_t bits) {
  return static_cast<int>((to_bits(input_value(dtype, bits)) >> 23) & 0xFF);
}

float multiplier(int e8m0) { return from_bits(static_cast<std::uint32_t>(254 - e8m0) << 23); }

// Expected element codes by prescaled fp32 bits, from the oracle.
class ExpectedCodes {
 public:
  ExpectedCodes(ElementKind element, Fp8NanPolicy policy) : element_(element), policy_(policy) {}
  std::uint8_t operator()(std::uint32_t y_bits) {
    auto [it, inserted] = cache_.try_emplace(y_bits, 0);
    if (inserted) {
      it->second = static_cast<std::uint8_t>(oracle::narrow(oracle::decode(Float32::info(), y_bits), element_, policy_));
    }
    return it->second;
  }
  std::size_t distinct() const { return cache_.size(); }

 private:
  ElementKind element_;
  Fp8NanPolicy policy_;
  std::unordered_map<std::uint32_t, std::uint8_t> cache_;
};

struct Campaign {
  std::size_t elements = 0;
  std::size_t tensors = 0;
};

// One configuration: all E8M0 values, all patterns. Fails on the first differing element.
void check_configuration(InputDtype input, OutputDtype output, EmaxMode mode, Fp8NanPolicy policy,
                         const std::vector<const Implementation*>& subjects, ExpectedCodes& expected,
                         Campaign& campaign) {
  QuantizeConfig config;
  config.input = input;
  config.output = output;
  config.emax_mode = mode;
  config.fp8_nan = policy;
  config.scale_layout = ScaleLayout::kLogical;
  const int bias = emax_bias(config);
  const bool fp4 = is_fp4(output);

  // One anchor pattern per reachable exponent field (positive: the largest magnitude with it).
  std::vector<int> anchor_of_field(256, -1);
  std::vector<int> fields(0x10000);
  for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    fields[bits] = field_of(input, static_cast<std::uint16_t>(bits));
    if ((bits & 0x8000) == 0) anchor_of_field[fields[bits]] = static_cast<int>(bits);
  }
  for (int e8m0 = 1; e8m0 <= 255 - bias; ++e8m0) {
    // The anchor's field: e8m0 + bias, or for E8M0 1 the largest reachable field that clamps to 1.
    int field = e8m0 + bias;
    if (e8m0 == 1) {
      while (field > 0 && anchor_of_field[field] < 0) --field;
    }
    if (anchor_of_field[field] < 0) continue;  // no input of this dtype has that field
    const std::uint16_t anchor = static_cast<std::uint16_t>(anchor_of_field[field]);
    // Candidates: every pattern whose field does not exceed the anchor's, in two groups. SIMD
    // kernels may redo a whole row of a 32-column chunk on a second path when one lane needs it
    // (a prescaled value in the element's subnormal band, a float16 subnormal input); a row
    // holding only one group keeps the first path's results visible to this test.
    const float m = multiplier(e8m0);
    const FormatInfo format = element_format(output);
    const double subnormal_low = std::ldexp(1.0, -format.bias - format.mantissa_bits);
    const double normal_low = std::ldexp(1.0, 1 - format.bias);
    std::vector<std::uint16_t> groups[2];
    for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
      if (fields[bits] > field) continue;
      const float x = input_value(input, static_cast<std::uint16_t>(bits));
      const double y = std::fabs(static_cast<double>(x * m));
      const bool subnormal_input = input == InputDtype::kFloat16 && (bits & 0x7C00) == 0 && (bits & 0x3FF) != 0;
      const bool second_path = subnormal_input || (y >= subnormal_low && y < normal_low);
      groups[second_path ? 1 : 0].push_back(static_cast<std::uint16_t>(bits));
    }
    // Layout: row 0 of each block holds its anchor and zeros; rows 1-7 hold the candidates in
    // row-major order, each group padded with zeros to a 32-column boundary.
    constexpr std::size_t kLanes = 32;
    std::vector<std::uint16_t> slots;
    for (const auto& group : groups) {
      slots.insert(slots.end(), group.begin(), group.end());
      slots.resize((slots.size() + kLanes - 1) / kLanes * kLanes, 0);
    }
    const std::size_t rows_of_candidates = kBlockRows - 1;
    std::size_t columns = (slots.size() + rows_of_candidates - 1) / rows_of_candidates;
    columns = (columns + kLanes - 1) / kLanes * kLanes;
    const std::size_t blocks = columns / kBlockCols;
    config.partitions = kBlockRows;
    config.free = columns;
    validate(config);
    std::vector<std::uint16_t> tensor(config.partitions * config.free, 0);
    for (std::size_t b = 0; b < blocks; ++b) tensor[b * kBlockCols] = anchor;
    std::copy(slots.begin(), slots.end(), tensor.begin() + config.free);
    std::vector<std::uint8_t> want(tensor.size());
    for (std::size_t k = 0; k < tensor.size(); ++k) want[k] = expected(to_bits(input_value(input, tensor[k]) * m));
    const Geometry g = geometry(config);
    for (const Implementation* subject : subjects) {
      std::vector<std::uint8_t> data(g.data_bytes), scale(g.scale_bytes);
      subject->quantize(config, tensor.data(), data.data(), scale.data());
      for (std::size_t b = 0; b < blocks; ++b) {
        ASSERT_EQ(scale[b], e8m0) << subject->name() << ": block " << b << "; " << describe(config);
      }
      for (std::size_t k = 0; k < tensor.size(); ++k) {
        const std::size_t position = k;  // stride 0, high parity 1: element 2j low, 2j+1 high
        const std::uint8_t actual = fp4 ? (position % 2 ? data[position / 2] >> 4 : data[position / 2] & 0xF) : data[k];
        if (actual != want[k]) {
          char text[160];
          std::snprintf(text, sizeof text, "input 0x%04X at E8M0 %d: y = 0x%08X, expected code 0x%02X, actual 0x%02X",
                        tensor[k], e8m0, to_bits(input_value(input, tensor[k]) * m), want[k], actual);
          FAIL() << subject->name() << ": " << text << "; " << describe(config);
        }
      }
    }
    campaign.elements += tensor.size();
    ++campaign.tensors;
  }
}

std::vector<const Implementation*> subjects() {
  std::vector<const Implementation*> out;
  for (const Implementation* impl : implementations()) {
    if (impl != &oracle::backend() && runnable_here(*impl)) out.push_back(impl);
  }
  return out;
}

class ExhaustiveElements : public ::testing::TestWithParam<ElementKind> {};

TEST_P(ExhaustiveElements, EveryPatternAtEveryReachableE8m0) {
  const ElementKind element = GetParam();
  const OutputDtype output = element == ElementKind::kFp4E2m1    ? OutputDtype::kFloat4E2m1fnX4
                             : element == ElementKind::kFp8E4m3fn ? OutputDtype::kFloat8E4m3fn
                                                                  : OutputDtype::kFloat8E5m2;
  std::vector<Fp8NanPolicy> policies = {Fp8NanPolicy::kCanonical};
  if (element != ElementKind::kFp4E2m1) policies.push_back(Fp8NanPolicy::kZero);
  const auto impls = subjects();
  for (Fp8NanPolicy policy : policies) {
    ExpectedCodes expected(element, policy);
    Campaign campaign;
    for (InputDtype input : {InputDtype::kBfloat16, InputDtype::kFloat16}) {
      for (EmaxMode mode : {EmaxMode::kEmax, EmaxMode::kEmaxMinus1}) {
        check_configuration(input, output, mode, policy, impls, expected, campaign);
        if (HasFatalFailure()) return;
      }
    }
    std::printf("%s nan=%s: %zu elements in %zu tensors per implementation, %zu distinct prescaled values\n",
                std::string(name(output)).c_str(), std::string(name(policy)).c_str(), campaign.elements,
                campaign.tensors, expected.distinct());
  }
}

INSTANTIATE_TEST_SUITE_P(Elements, ExhaustiveElements,
                         ::testing::Values(ElementKind::kFp4E2m1, ElementKind::kFp8E4m3fn, ElementKind::kFp8E5m2));

TEST(ExhaustivePrescale, OracleProductMatchesTheX86Multiply) {
  std::size_t checked = 0;
  for (InputDtype input : {InputDtype::kBfloat16, InputDtype::kFloat16}) {
    const FormatInfo format = input_format(input);
    for (int e8m0 : {1, 2, 64, 127, 128, 200, 240, 253, 254}) {
      const oracle::Value m = oracle::multiplier(e8m0);
      for (std::uint32_t bits = 0; bits <= 0xFFFF; bits += (e8m0 == 1 || e8m0 == 254 ? 1 : 7)) {
        const oracle::Value y = oracle::prescale(oracle::decode(format, bits), m);
        const std::uint32_t hardware = to_bits(input_value(input, static_cast<std::uint16_t>(bits)) * multiplier(e8m0));
        const oracle::Value want = oracle::decode(Float32::info(), hardware);
        ASSERT_EQ(y.kind, want.kind) << std::hex << bits << " e8m0 " << std::dec << e8m0;
        ASSERT_EQ(y.negative, want.negative) << std::hex << bits << " e8m0 " << std::dec << e8m0;
        ASSERT_EQ(y.magnitude, want.magnitude) << std::hex << bits << " e8m0 " << std::dec << e8m0;
        ++checked;
      }
    }
  }
  std::printf("%zu oracle prescales match the hardware multiply\n", checked);
}

}  // namespace
}  // namespace mxconform
