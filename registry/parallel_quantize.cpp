#include "mxconform/parallel_quantize.h"

#include <algorithm>
#include <numeric>

#include <tbb/blocked_range.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include "mxconform/registry.h"
#include "mxconform/scale_layout.h"

namespace mxconform {
namespace {

// The fewest partition groups between two places a piece may start (the header's two rules).
std::size_t groups_between_cuts(const QuantizeConfig& config) {
  const std::size_t layout_step = config.scale_layout == ScaleLayout::kPhysical ? kScaleSlotGroupRows : 1;
  std::size_t lane_step = 1;
  if (is_fp4(config.output) && config.fp4_lane_stride != 0) {
    const std::size_t window = 2 * static_cast<std::size_t>(config.fp4_lane_stride);
    const std::size_t group_elements = geometry(config).block_height * config.free;
    lane_step = window / std::gcd(group_elements, window);  // least k with k * group_elements % window == 0
  }
  return std::lcm(layout_step, lane_step);
}

}  // namespace

std::vector<QuantizePiece> split_into_pieces(const QuantizeConfig& config, std::size_t pieces) {
  const Geometry g = geometry(config);
  const std::size_t step = groups_between_cuts(config);
  const std::size_t steps = (g.block_rows + step - 1) / step;  // the last one may hold fewer groups
  const std::size_t count = std::clamp<std::size_t>(pieces, 1, steps);
  std::vector<QuantizePiece> result;
  result.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t first = std::min(g.block_rows, steps * i / count * step);
    const std::size_t end = std::min(g.block_rows, steps * (i + 1) / count * step);
    const std::size_t first_row = first * g.block_height;  // a block row is block_height partitions
    QuantizePiece piece{first, config, first_row * config.free, first_row * g.data_row_bytes,
                        scale_row(config, first) * g.block_cols};
    piece.config.partitions = (end - first) * g.block_height;
    result.push_back(piece);
  }
  return result;
}

void for_each_piece(const std::vector<QuantizePiece>& pieces, const std::function<void(const QuantizePiece&)>& body) {
  if (pieces.size() == 1) {
    body(pieces.front());
    return;
  }
  // One contiguous piece per thread (static_partitioner): each stays large enough for a kernel's
  // streaming stores, and no piece waits for another. No more threads than oneTBB may start (it
  // warns on stderr otherwise); more pieces than threads then share them.
  const std::size_t threads = std::min(pieces.size(), default_quantize_threads());
  tbb::task_arena arena(static_cast<int>(threads));
  arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, pieces.size(), 1),
        [&](const tbb::blocked_range<std::size_t>& range) {
          for (std::size_t i = range.begin(); i != range.end(); ++i) body(pieces[i]);
        },
        tbb::static_partitioner());
  });
}

bool quantizes_in_parallel(const Subject& subject) {
  const std::vector<const Subject*>& built_ins = built_in_subjects();
  return !subject.is_reference() && std::find(built_ins.begin(), built_ins.end(), &subject) != built_ins.end();
}

std::size_t default_quantize_threads() {
  return static_cast<std::size_t>(std::max(1, tbb::info::default_concurrency()));
}

void quantize_parallel(const Subject& subject, const QuantizeConfig& config, const std::uint16_t* input,
                       std::uint8_t* data, std::uint8_t* scale, std::size_t threads) {
  if (threads <= 1 || !quantizes_in_parallel(subject)) {
    subject.quantize(config, input, data, scale);
    return;
  }
  for_each_piece(split_into_pieces(config, threads), [&](const QuantizePiece& piece) {
    subject.quantize(piece.config, input + piece.input_offset, data + piece.data_offset, scale + piece.scale_offset);
  });
}

}  // namespace mxconform
