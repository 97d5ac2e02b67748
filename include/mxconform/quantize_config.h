#pragma once
// The quantize configuration: dtypes, shape and every open point of docs/contract.md as a named
// knob, with the defaults there. Validated in one place; algorithms receive it read-only.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mxconform/dtype.h"
#include "mxconform/profile.h"

namespace mxconform {

enum class EmaxMode { kEmax, kEmaxMinus1 };          // emaxBias = EMAX or EMAX - 1
enum class Fp8NanPolicy { kCanonical, kZero };      // NaN -> sign|0x7F, or signed zero
enum class ScaleLayout { kPhysical, kLogical };     // slot-interleaved rows, or [P/8][F/4]

// Block geometry (docs/contract.md step 2): 8 partitions x 4 columns = 32 elements.
inline constexpr std::size_t kBlockRows = 8;
inline constexpr std::size_t kBlockCols = 4;
inline constexpr std::size_t kBlockSize = kBlockRows * kBlockCols;
static_assert(kBlockSize == 32);

struct QuantizeConfig {
  InputDtype input = InputDtype::kBfloat16;
  OutputDtype output = OutputDtype::kFloat8E4m3fn;
  std::size_t partitions = 0;  // P
  std::size_t free = 0;        // F, in elements
  EmaxMode emax_mode = EmaxMode::kEmax;
  Fp8NanPolicy fp8_nan = Fp8NanPolicy::kCanonical;
  std::uint32_t fp4_lane_stride = 0;  // 0: no lane remap
  int fp4_high_parity = 1;            // nibble position r goes HIGH when (r & 1) == parity
  ScaleLayout scale_layout = ScaleLayout::kPhysical;
  // The contract (include/mxconform/profile.h): neuron unless the user says --profile.
  ProfileId profile = ProfileId::kNeuron;
  BlockShape block_shape = BlockShape::k8x4;  // which elements share a scale byte
};

// Sets `config`'s profile and the knobs that profile fixes or defaults: its block shape, the
// logical scale layout outside Neuron's geometry, EMAX-1 for nki-golden-kernel, no lane remap and
// parity 1 where the profile packs c0 | c1 << 4. Leaves dtypes and shape alone.
void apply_profile(QuantizeConfig& config, ProfileId id);

// Throws Error naming the broken rule: P and F multiples of the block shape (8 x 4 by default), P or F zero, the FP4 lane-stride rule
// (P*F) % (2*stride) == 0, parity not 0/1, a size that overflows.
// a knob value or dtype the profile does not admit,
void validate(const QuantizeConfig& config);

// Sizes derived from a validated configuration.
struct Geometry {
  std::size_t block_rows;       // P / block height (8 for Neuron): partition groups, logical scale rows
  std::size_t block_cols;       // F / block width (4 for Neuron): scale bytes per row
  std::size_t block_height;     // partitions per block
  std::size_t block_width;      // columns per block
  std::size_t data_bytes;       // P*F for FP8, P*F/2 for FP4
  std::size_t data_row_bytes;   // F or F/2
  std::size_t containers_per_row;  // F / elements_per_container: the data tensor's free extent
  std::size_t scale_rows;       // rows of the scale buffer in the configured layout
  std::size_t scale_bytes;      // scale_rows * block_cols
};
Geometry geometry(const QuantizeConfig& config);

// The row of the scale buffer that holds partition group `group`'s E8M0 bytes: scale_slot(group)
// in the physical layout (the contract, step 7), `group` in the logical one.
std::size_t scale_row(const QuantizeConfig& config, std::size_t group);

// For each row of the scale buffer (geometry(config).scale_rows), whether a group's bytes go
// there. In the physical layout the other rows are never written.
std::vector<bool> named_scale_rows(const QuantizeConfig& config);

// emaxBias of docs/contract.md step 3 for the configured output dtype and EMAX mode.
int emax_bias(const QuantizeConfig& config);

// "key=value ..." listing of every field, printed in every report; the profile and block shape
// are listed when the profile is not neuron.
std::string describe(const QuantizeConfig& config);

std::string_view name(EmaxMode mode);
std::string_view name(Fp8NanPolicy policy);
std::string_view name(ScaleLayout layout);
EmaxMode parse_emax_mode(std::string_view text);
Fp8NanPolicy parse_fp8_nan(std::string_view text);
ScaleLayout parse_scale_layout(std::string_view text);

}  // namespace mxconform
