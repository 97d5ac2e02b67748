#pragma once
// docs/contract.md step 6 for FP4: two nibbles per byte, with the lane remap and the parity knob.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "fault_injection.h"
#include "mxconform/lane_remap.h"

namespace mxconform::impl {
inline namespace MXCONFORM_IMPL_VARIANT {

// Writes bytes [0, count / 2) from `count` element codes (one per byte, 0..15), element k's
// nibble at position lane_remap(k) (or k for stride 0). Every output byte is written.
// Precondition: count % (2 * stride) == 0.
inline void pack_fp4(const std::uint8_t* codes, std::size_t count, std::uint32_t stride,
                     int high_parity, std::uint8_t* out) {
  constexpr int kNibbleBits = 4;
#ifdef MXCONFORM_FAULT_INJECTION
  if (fault_planted(Fault::kNoLaneRemap)) stride = 0;
#endif
  // lane_remap is an involution, so the element at position r is lane_remap(r).
  auto element_at = [stride](std::size_t position) {
    return stride == 0 ? position : lane_remap(position, stride);
  };
  const int high_slot = high_parity;  // position parity that goes to the high nibble
  for (std::size_t b = 0; b < count / 2; ++b) {
    const std::uint8_t even = codes[element_at(2 * b)];
    const std::uint8_t odd = codes[element_at(2 * b + 1)];
    const std::uint8_t high = high_slot == 0 ? even : odd;
    const std::uint8_t low = high_slot == 0 ? odd : even;
    out[b] = static_cast<std::uint8_t>((high << kNibbleBits) | low);
  }
}

// The inverse: element codes from packed bytes.
inline void unpack_fp4(const std::uint8_t* packed, std::size_t count, std::uint32_t stride,
                       int high_parity, std::uint8_t* codes) {
  constexpr int kNibbleBits = 4;
  constexpr std::uint8_t kLowNibble = 0b1111;
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t position = stride == 0 ? k : lane_remap(k, stride);
    const std::uint8_t byte = packed[position / 2];
    const bool high = static_cast<int>(position & 1) == high_parity;
    codes[k] = high ? static_cast<std::uint8_t>(byte >> kNibbleBits) : byte & kLowNibble;
  }
}

// The lane remap applied to bytes packed with stride 0: lane_remap moves nibble pair p of a
// window of 2*stride nibbles to pair stride-1-p, and a nibble pair is a byte, so each window of
// `stride` bytes is reversed. Precondition: size % stride == 0.
inline void reverse_byte_windows(std::uint8_t* data, std::size_t size, std::size_t stride) {
  if (stride < 2) return;
  for (std::size_t w = 0; w + stride <= size; w += stride) std::reverse(data + w, data + w + stride);
}

}  // namespace MXCONFORM_IMPL_VARIANT
}  // namespace mxconform::impl
