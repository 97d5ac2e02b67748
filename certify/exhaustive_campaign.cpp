#include "exhaustive_campaign.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "mxconform/bit_cast.h"
#include "mxconform/element_value.h"
#include "oracle.h"

namespace mxconform::certify {
namespace {

float from_bits(std::uint32_t bits) { return bit_cast<float>(bits); }
std::uint32_t to_bits(float value) { return bit_cast<std::uint32_t>(value); }

float multiplier(int e8m0) { return from_bits(static_cast<std::uint32_t>(2 * Float32::kBias - e8m0) << Float32::kMantissaBits); }

constexpr std::size_t kSegmentLanes = 64;  // a SIMD chunk row: separated groups are padded to this

// Bit patterns of an input format, from its definition.
struct InputBits {
  explicit InputBits(InputDtype dtype) : format(input_format(dtype)) {}
  std::uint32_t sign() const { return format.sign_mask; }
  std::uint32_t exponent_mask() const { return ((1u << format.exponent_bits) - 1) << format.mantissa_bits; }
  std::uint32_t smallest_normal() const { return 1u << format.mantissa_bits; }
  bool normal_or_special(std::uint32_t bits) const { return (bits & exponent_mask()) != 0; }
  FormatInfo format;
};

}  // namespace

float input_float(InputDtype dtype, std::uint16_t bits) {
  return static_cast<float>(mxconform::input_value(dtype, bits));  // exact: every input value is a float
}

ExhaustiveCampaign::ExhaustiveCampaign(InputDtype input, OutputDtype output, EmaxMode mode, Fp8NanPolicy policy) {
  config_.input = input;
  config_.output = output;
  config_.emax_mode = mode;
  config_.fp8_nan = policy;
  config_.scale_layout = ScaleLayout::kLogical;
  fields_.resize(0x10000);
  anchor_of_field_.assign(256, -1);
  for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    fields_[bits] = static_cast<int>((to_bits(input_float(input, static_cast<std::uint16_t>(bits))) >> 23) & 0xFF);
    if ((bits & 0x8000) == 0) anchor_of_field_[fields_[bits]] = static_cast<int>(bits);
  }
  for (int e8m0 = 1; e8m0 <= 255 - emax_bias(config_); ++e8m0) {
    if (anchor_of_field_[anchor_field(e8m0)] >= 0) reachable_.push_back(e8m0);
  }
}

int ExhaustiveCampaign::anchor_field(int e8m0) const {
  int field = e8m0 + emax_bias(config_);
  if (e8m0 == 1) {
    while (field > 0 && anchor_of_field_[field] < 0) --field;
  }
  return field;
}

std::uint8_t ExhaustiveCampaign::expected_code(std::uint32_t y_bits) {
  auto [it, inserted] = expected_.try_emplace(y_bits, 0);
  if (inserted) {
    it->second = static_cast<std::uint8_t>(
        oracle::narrow(oracle::decode(Float32::info(), y_bits), info(config_.output).element, config_.fp8_nan));
  }
  return it->second;
}

// What sits between pattern blocks. kNone: nothing, every block holds patterns.
enum class Neighbour {
  kZero,          // all zeros: E8M0 1
  kBandTrigger,   // the anchor, and in rows 1-7 a value whose y is in the element's subnormal band
  kInputTrigger,  // the anchor, and in rows 1-7 the smallest subnormal input
  kSpecial,       // +Inf, and NaN in row 1
};

// Which inputs a context may hold.
enum class Inputs {
  kAll,
  kNoZero,      // every pattern but the zeros; the filler is the smallest positive subnormal
  kNormalOnly,  // normal (and Inf/NaN) patterns only; the filler is the smallest positive normal
};

struct ExhaustiveCampaign::Context {
  const char* name;
  Inputs inputs;
  std::vector<Neighbour> cycle;  // neighbour blocks, in turn, after each pattern block; empty: none
  bool separate;                 // second-path patterns get row segments of their own
  bool band_trigger;             // needs a subnormal-band value at this E8M0 (FP8 only)
};

std::vector<ExhaustiveTensor> ExhaustiveCampaign::tensors(int e8m0) {
  const int field = anchor_field(e8m0);
  const float m = multiplier(e8m0);
  const FormatInfo format = element_format(config_.output);
  const double subnormal_low = std::ldexp(1.0, -format.bias - format.mantissa_bits);
  const double normal_low = std::ldexp(1.0, 1 - format.bias);

  const InputBits input(config_.input);
  std::vector<std::uint16_t> patterns;
  std::vector<bool> second_path;
  int band_trigger = -1;  // the largest positive pattern with y in the subnormal band
  for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    if (fields_[bits] > field) continue;
    const double y = std::fabs(static_cast<double>(input_float(config_.input, static_cast<std::uint16_t>(bits)) * m));
    const bool in_band = y >= subnormal_low && y < normal_low;
    const bool subnormal_input = fields_[bits] != 0 && !input.normal_or_special(bits);
    patterns.push_back(static_cast<std::uint16_t>(bits));
    second_path.push_back(in_band || (config_.input == InputDtype::kFloat16 && subnormal_input));
    if (in_band && (bits & input.sign()) == 0) band_trigger = static_cast<int>(bits);
  }
  const bool fp8 = !is_fp4(config_.output);
  const std::vector<Context> contexts = {
      {"alone", Inputs::kAll, {}, true, false},
      {"normal-inputs-only", Inputs::kNormalOnly, {}, true, false},
      {"no-zero-inputs", Inputs::kNoZero, {}, true, false},
      {"zero-neighbours", Inputs::kAll, {Neighbour::kZero}, true, false},
      {"band-neighbours", Inputs::kAll, {Neighbour::kBandTrigger}, false, true},
      {"band-and-zero-neighbours", Inputs::kAll, {Neighbour::kBandTrigger, Neighbour::kZero}, false, true},
      {"subnormal-input-and-zero-neighbours", Inputs::kAll, {Neighbour::kInputTrigger, Neighbour::kZero}, false, false},
      {"special-neighbours", Inputs::kAll, {Neighbour::kSpecial}, false, false},
  };
  std::vector<ExhaustiveTensor> out;
  for (const Context& context : contexts) {
    if (context.band_trigger && (!fp8 || band_trigger < 0)) continue;
    std::optional<ExhaustiveTensor> t = build(e8m0, context, patterns, second_path, band_trigger);
    if (t) out.push_back(std::move(*t));
  }
  return out;
}

std::optional<ExhaustiveTensor> ExhaustiveCampaign::build(int e8m0, const Context& context, const std::vector<std::uint16_t>& patterns,
                                           const std::vector<bool>& second_path, int band_trigger) {
  // Pattern slots, in order; a separated context pads each group to whole row segments. A
  // context without zeros or without non-normal inputs (some kernels pick a faster path for such
  // chunks) leaves those patterns to the others and fills with the smallest positive input it
  // may hold.
  const InputBits input(config_.input);
  const auto anchor = static_cast<std::uint16_t>(anchor_of_field_[anchor_field(e8m0)]);
  const bool normal_only = context.inputs == Inputs::kNormalOnly;
  const bool no_zero = context.inputs == Inputs::kNoZero;
  if (normal_only && !input.normal_or_special(anchor)) return std::nullopt;
  const std::uint16_t filler = normal_only ? static_cast<std::uint16_t>(input.smallest_normal())
                               : no_zero   ? std::uint16_t{1}
                                           : std::uint16_t{0};
  const bool alone = context.cycle.empty();
  const std::size_t segment = alone ? kSegmentLanes : kSegmentLanes / 2;  // pattern lanes per 64 columns
  std::vector<std::uint16_t> slots;
  if (context.separate) {
    for (bool second : {false, true}) {
      for (std::size_t i = 0; i < patterns.size(); ++i) {
        if (second_path[i] != second) continue;
        if (normal_only && !input.normal_or_special(patterns[i])) continue;
        if (no_zero && (patterns[i] & ~input.sign()) == 0) continue;
        slots.push_back(patterns[i]);
      }
      slots.resize((slots.size() + segment - 1) / segment * segment, filler);
    }
  } else {
    slots = patterns;
  }
  if (slots.empty()) return std::nullopt;  // every pattern left out
  const std::size_t candidate_rows = kBlockRows - 1;
  std::size_t pattern_cols = (slots.size() + candidate_rows - 1) / candidate_rows;
  pattern_cols = (pattern_cols + segment - 1) / segment * segment;
  const std::size_t columns = alone ? pattern_cols : 2 * pattern_cols;

  ExhaustiveTensor t;
  t.config = config_;
  t.config.partitions = kBlockRows;
  t.config.free = columns;
  validate(t.config);
  t.e8m0 = e8m0;
  t.context = context.name;
  t.input.assign(kBlockRows * columns, filler);
  auto at = [&](std::size_t row, std::size_t col) -> std::uint16_t& { return t.input[row * columns + col]; };
  const std::size_t blocks = columns / kBlockCols;
  std::size_t next_slot = 0;
  std::vector<std::size_t> pattern_blocks;
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t col = b * kBlockCols;
    if (alone || b % 2 == 0) {
      at(0, col) = anchor;
      pattern_blocks.push_back(b);
      continue;
    }
    switch (context.cycle[(b / 2) % context.cycle.size()]) {
      case Neighbour::kZero: break;
      case Neighbour::kBandTrigger:
      case Neighbour::kInputTrigger:
        at(0, col) = anchor;
        for (std::size_t r = 1; r < kBlockRows; ++r) {
          at(r, col + 1) = context.cycle[(b / 2) % context.cycle.size()] == Neighbour::kBandTrigger
                               ? static_cast<std::uint16_t>(band_trigger)
                               : std::uint16_t{1};
        }
        break;
      case Neighbour::kSpecial:
        at(0, col) = static_cast<std::uint16_t>(input.exponent_mask());  // +Inf
        at(1, col + 1) = static_cast<std::uint16_t>(anchor_of_field_[Float32::kExponentFieldMax]);  // NaN
        break;
    }
  }
  // Rows 1-7 of the pattern blocks, row by row.
  for (std::size_t r = 1; r < kBlockRows; ++r) {
    for (std::size_t b : pattern_blocks) {
      for (std::size_t c = 0; c < kBlockCols; ++c) {
        at(r, b * kBlockCols + c) = next_slot < slots.size() ? slots[next_slot] : filler;
        ++next_slot;
      }
    }
  }

  // Expected bytes: each block's E8M0 from its largest field (docs/contract.md step 3), then each
  // element's code from the oracle's narrow of its prescaled value.
  t.expected_scale.resize(blocks);
  t.codes.resize(t.input.size());
  for (std::size_t b = 0; b < blocks; ++b) {
    int max_field = 0;
    for (std::size_t r = 0; r < kBlockRows; ++r) {
      for (std::size_t c = 0; c < kBlockCols; ++c) max_field = std::max(max_field, fields_[at(r, b * kBlockCols + c)]);
    }
    const int block_e8m0 = std::max(1, max_field - emax_bias(config_));
    t.expected_scale[b] = static_cast<std::uint8_t>(block_e8m0);
    const float block_m = multiplier(block_e8m0);
    for (std::size_t r = 0; r < kBlockRows; ++r) {
      for (std::size_t c = 0; c < kBlockCols; ++c) {
        const std::size_t k = r * columns + b * kBlockCols + c;
        t.codes[k] = expected_code(to_bits(input_float(config_.input, t.input[k]) * block_m));
      }
    }
  }
  // Packed as the oracle packs (stride 0, high parity 1: element 2j in the low nibble).
  const std::vector<std::uint32_t> codes(t.codes.begin(), t.codes.end());
  t.expected_data.resize(geometry(t.config).data_bytes);
  oracle::pack(t.config, codes, t.expected_data.data());
  return t;
}

}  // namespace mxconform::certify
