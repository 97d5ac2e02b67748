#pragma once
// The exhaustive element campaign: for one input dtype, output dtype, EMAX mode and FP8 NaN
// policy, every 16-bit input pattern at every E8M0 a block could give it, as tensors with
// their expected bytes. Shared by exhaustive_element_test and `mxconform certify`.
//
// A block gets E8M0 e from an anchor element whose exponent field is e + emaxBias (row 0 of each
// pattern block holds the anchor and zeros). Rows 1-7 hold every pattern whose field does not
// exceed the anchor's. The prescaled value y = fp32(x * M) is the x86 multiply docs/contract.md
// step 4 defines, so the oracle's narrow is asked once per distinct y (cached).
//
// Fast kernels narrow a row of a chunk of blocks at a time and pick a path per chunk or per row
// from what else is in it. So every E8M0 gets several tensors, one per context, each holding
// every pattern that fits the context: alone (all blocks at E8M0 e; patterns that send a row
// elsewhere, y in the element's subnormal band or a subnormal input, get 64-lane row segments of
// their own), alone without any zero or subnormal input, alone without any zero, and with
// neighbour blocks interleaved with the pattern blocks: all-zero blocks (E8M0 1), blocks at
// E8M0 e holding a subnormal-band value in every row, both of those, all-zero blocks plus
// blocks with a subnormal input in every row, and blocks holding Inf.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "mxconform/quantize_config.h"

namespace mxconform::certify {

struct ExhaustiveTensor {
  QuantizeConfig config;  // logical scale layout, lane stride 0, high parity 1
  int e8m0 = 0;           // the pattern blocks' expected scale byte
  std::string context;    // what the neighbour blocks hold: "alone", "zero-neighbours", ...
  std::vector<std::uint16_t> input;
  std::vector<std::uint8_t> codes;          // expected element code per element
  std::vector<std::uint8_t> expected_data;  // packed
  std::vector<std::uint8_t> expected_scale;
};

class ExhaustiveCampaign {
 public:
  ExhaustiveCampaign(InputDtype input, OutputDtype output, EmaxMode mode, Fp8NanPolicy policy);

  // Every E8M0 some block of this input dtype can produce, ascending.
  const std::vector<int>& reachable_e8m0() const { return reachable_; }
  // The tensors for one reachable E8M0, one per context that applies to this configuration.
  std::vector<ExhaustiveTensor> tensors(int e8m0);
  std::size_t distinct_prescaled_values() const { return expected_.size(); }

 private:
  std::uint8_t expected_code(std::uint32_t y_bits);
  struct Context;
  std::optional<ExhaustiveTensor> build(int e8m0, const Context& context, const std::vector<std::uint16_t>& patterns,
                         const std::vector<bool>& second_path, int band_trigger);
  // The anchor's field for `e8m0`: e8m0 + emaxBias, or for E8M0 1 the largest field at or below
  // emaxBias + 1 that some pattern of the input dtype has (every such field clamps to 1).
  int anchor_field(int e8m0) const;

  QuantizeConfig config_;
  std::vector<int> fields_;            // fp32 exponent field of each pattern
  std::vector<int> anchor_of_field_;   // largest positive pattern with each field, or -1
  std::vector<int> reachable_;
  std::unordered_map<std::uint32_t, std::uint8_t> expected_;
};

// The input's value as a float (exact: every bfloat16 and float16 value is one).
float input_float(InputDtype dtype, std::uint16_t bits);

}  // namespace mxconform::certify
