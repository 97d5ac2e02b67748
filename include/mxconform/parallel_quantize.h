#pragma once
// Quantizing one tensor on several threads (oneTBB). The tensor is cut on partition-group (block
// row) boundaries into pieces, each quantized as its own sub-tensor: P' = block height * groups, the same F
// and knobs. A piece starts only where a sub-tensor reproduces the whole tensor's bytes, so the
// output is byte-identical for every thread count:
// - physical scale layout: at a multiple of 4 groups, where scale_slot(first + j) =
//   scale_slot(first) + scale_slot(j) and the piece's rows are those of the whole buffer, shifted;
// - FP4 with lane stride s: at an element offset that is a multiple of 2s, a remap window boundary.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "mxconform/subject.h"
#include "mxconform/quantize_config.h"

namespace mxconform {

// One piece: block rows [first_group, first_group + config.partitions / block height) of the whole.
struct QuantizePiece {
  std::size_t first_group;
  QuantizeConfig config;     // the sub-tensor: P' = block height * its groups, the whole's F and knobs
  std::size_t input_offset;  // input elements before the piece's first one
  std::size_t data_offset;   // data bytes before the piece's first one
  std::size_t scale_offset;  // scale bytes before scale_row(whole, first_group)
};

// At most `pieces` (>= 1) pieces of a validated `config`, in order, covering every partition group
// once, as equal in size as the boundaries allow; fewer when the tensor has fewer places to cut
// (one when it has none).
std::vector<QuantizePiece> split_into_pieces(const QuantizeConfig& config, std::size_t pieces);

// Runs `body` once for each piece, on up to pieces.size() threads of a oneTBB arena; returns when
// every call has returned. An exception from `body` is rethrown here.
void for_each_piece(const std::vector<QuantizePiece>& pieces, const std::function<void(const QuantizePiece&)>& body);

// True when quantize_parallel runs `subject` on more than one thread: the built-in kernels of the
// registry. Plug-ins (the ABI promises them one call at a time) and the oracle run on one thread.
bool quantizes_in_parallel(const Subject& subject);

// The thread count quantize uses by default: oneTBB's default concurrency (the CPUs this process
// may run on), at least 1.
std::size_t default_quantize_threads();

// subject.quantize(config, ...) split over up to `threads` threads (0 is taken as 1), with the
// same preconditions and the same bytes written: every data byte and only the named scale rows.
// One thread, or a subject for which quantizes_in_parallel is false, is a single plain call.
void quantize_parallel(const Subject& subject, const QuantizeConfig& config, const std::uint16_t* input,
                       std::uint8_t* data, std::uint8_t* scale, std::size_t threads);

}  // namespace mxconform
