#include "shrink.h"

#include <algorithm>
#include <cctype>
#include <chrono>

#include "corpus_loader.h"
#include "mxconform/error.h"
#include "mxconform/profile.h"
#include "oracle.h"

namespace mxconform::certify {
namespace {

// The text with every run of digits replaced by "N": a site without its offsets and addresses.
std::string without_numbers(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) == 0) {
      out += text[i];
    } else if (i == 0 || std::isdigit(static_cast<unsigned char>(text[i - 1])) == 0) {
      out += 'N';
    }
  }
  return out;
}

bool within_loader_limits(const QuantizeConfig& config) {
  return config.partitions <= corpus::kMaxExtent && config.free <= corpus::kMaxExtent &&
         config.partitions * config.free <= corpus::kMaxElementsPerCase && config.fp4_lane_stride <= corpus::kMaxLaneStride;
}

bool is_zero(InputDtype dtype, std::uint16_t bits) { return (bits & input_format(dtype).magnitude_mask) == 0; }

// A rectangle of whole blocks: block rows [group, group + groups), column blocks
// [column_block, column_block + column_blocks).
struct Window {
  std::size_t group, groups, column_block, column_blocks;
};

std::vector<std::uint16_t> cut(const QuantizeConfig& config, const std::vector<std::uint16_t>& input, const Window& w) {
  const BlockExtent block = extent(config.block_shape);
  const std::size_t rows = w.groups * block.rows, cols = w.column_blocks * block.cols;
  std::vector<std::uint16_t> out(rows * cols);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      out[r * cols + c] = input[(w.group * block.rows + r) * config.free + w.column_block * block.cols + c];
    }
  }
  return out;
}

// The window sizes tried along an axis of `n` blocks, smallest first: every size up to 16, then
// powers of two, all below n.
std::vector<std::size_t> window_sizes(std::size_t n) {
  constexpr std::size_t kEverySizeUpTo = 16;
  std::vector<std::size_t> out;
  for (std::size_t s = 1; s < n && s <= kEverySizeUpTo; ++s) out.push_back(s);
  for (std::size_t s = 2 * kEverySizeUpTo; s < n; s *= 2) out.push_back(s);
  return out;
}

// Where windows of `size` blocks start along an axis of `n`: with the focus block (the first
// difference's) first in it and last in it, then at the start and at the end of the axis.
std::vector<std::size_t> window_starts(std::size_t n, std::size_t size, std::optional<std::size_t> focus) {
  std::vector<std::size_t> out;
  const auto add = [&](std::size_t start) {
    if (start + size <= n && std::find(out.begin(), out.end(), start) == out.end()) out.push_back(start);
  };
  if (focus) {
    add(*focus);
    if (*focus + 1 >= size) add(*focus + 1 - size);
  }
  add(0);
  add(n - size);
  return out;
}

class Shrinker {
 public:
  Shrinker(WorkerBackend& backend, const FailureSignature& wanted, std::size_t max_tries, double seconds)
      : backend_(backend), wanted_(wanted), max_tries_(max_tries), seconds_(seconds),
        started_(std::chrono::steady_clock::now()) {}

  bool spent() const {
    return tries_ >= max_tries_ ||
           std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count() > seconds_;
  }

  // Runs the candidate; keeps it as the best so far when it fails the wanted way.
  bool attempt(const QuantizeConfig& config, std::vector<std::uint16_t> input) {
    if (spent() || !within_loader_limits(config)) return false;
    try {
      validate(config);
    } catch (const Error&) {
      return false;  // e.g. an FP4 lane stride the smaller shape cannot hold
    }
    std::vector<std::uint8_t> data, scale;
    expected_output(config, input, data, scale);
    ++tries_;
    CallResult result = backend_.run(config, input, data, scale);
    FailureSignature signature = signature_of(result, config, input, data, scale);
    if (!(signature == wanted_)) return false;
    best_ = ShrunkCase{config, std::move(input), std::move(result), std::move(signature), 0};
    return true;
  }

  void start_from(ShrunkCase original) { best_ = std::move(original); }
  ShrunkCase& best() { return best_; }
  std::size_t tries() const { return tries_; }

  // The first difference's block, when the failure is a wrong result.
  std::optional<std::pair<std::size_t, std::size_t>> focus() const {
    if (!best_.signature.comparison || !best_.signature.comparison->first()) return std::nullopt;
    const Difference& d = *best_.signature.comparison->first();
    return std::make_pair(d.group, d.column_block);
  }

  // One pass over one axis: the smallest window along it that still fails the same way.
  bool shrink_axis(bool along_rows) {
    const QuantizeConfig config = best_.config;
    const BlockExtent block = extent(config.block_shape);  // 8x4, 1x32 or 32x1
    const std::size_t n = along_rows ? config.partitions / block.rows : config.free / block.cols;
    const auto f = focus();
    const std::optional<std::size_t> focus_index =
        f ? std::optional<std::size_t>(along_rows ? f->first : f->second) : std::nullopt;
    for (std::size_t size : window_sizes(n)) {
      for (std::size_t start : window_starts(n, size, focus_index)) {
        if (spent()) return false;
        Window w{0, config.partitions / block.rows, 0, config.free / block.cols};
        (along_rows ? w.group : w.column_block) = start;
        (along_rows ? w.groups : w.column_blocks) = size;
        QuantizeConfig smaller = config;
        smaller.partitions = w.groups * block.rows;
        smaller.free = w.column_blocks * block.cols;
        if (attempt(smaller, cut(config, best_.input, w))) return true;
      }
    }
    return false;
  }

  // Zeroes what it can: every block but the focus at once, then block by block, then element by
  // element.
  void shrink_elements() {
    const QuantizeConfig config = best_.config;
    const BlockExtent block = extent(config.block_shape);
    const std::size_t groups = config.partitions / block.rows, column_blocks = config.free / block.cols;
    const auto block_of = [&](std::size_t k) {
      return std::make_pair(k / config.free / block.rows, k % config.free / block.cols);
    };
    const auto zeroed = [&](auto&& which) {
      std::vector<std::uint16_t> out = best_.input;
      bool changed = false;
      for (std::size_t k = 0; k < out.size(); ++k) {
        if (which(k) && out[k] != 0) {  // -0 becomes +0 too
          out[k] = 0;
          changed = true;
        }
      }
      return changed ? std::optional<std::vector<std::uint16_t>>(out) : std::nullopt;
    };
    if (const auto f = focus(); f && groups * column_blocks > 1) {
      if (auto candidate = zeroed([&](std::size_t k) { return block_of(k) != *f; })) attempt(config, *candidate);
    }
    if (groups * column_blocks > 1) {
      for (std::size_t g = 0; g < groups && !spent(); ++g) {
        for (std::size_t c = 0; c < column_blocks && !spent(); ++c) {
          if (auto candidate = zeroed([&](std::size_t k) { return block_of(k) == std::make_pair(g, c); })) {
            attempt(config, *candidate);
          }
        }
      }
    }
    for (std::size_t k = 0; k < best_.input.size() && !spent(); ++k) {
      if (auto candidate = zeroed([&](std::size_t i) { return i == k; })) attempt(config, *candidate);
    }
  }

 private:
  WorkerBackend& backend_;
  const FailureSignature& wanted_;
  std::size_t max_tries_;
  double seconds_;
  std::chrono::steady_clock::time_point started_;
  std::size_t tries_ = 0;
  ShrunkCase best_;
};

}  // namespace

void expected_output(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                     std::vector<std::uint8_t>& data, std::vector<std::uint8_t>& scale) {
  const Geometry g = geometry(config);
  data.assign(g.data_bytes, 0);
  scale.assign(g.scale_bytes, 0);
  oracle::quantize(config, input.data(), data.data(), scale.data());
}

FailureSignature signature_of(const CallResult& result, const QuantizeConfig& config,
                              const std::vector<std::uint16_t>& input, const std::vector<std::uint8_t>& expected_data,
                              const std::vector<std::uint8_t>& expected_scale) {
  FailureSignature out;
  out.outcome = result.outcome;
  out.text = name(result.outcome);
  if (result.outcome == Outcome::kWrongResult && result.data.size() == expected_data.size() &&
      result.scale.size() == expected_scale.size()) {
    out.comparison = compare(config, input, expected_data, expected_scale, result.data, result.scale);
    if (out.comparison->first()) out.text += ": " + out.comparison->first()->signature();
  } else if (is_failure(result.outcome)) {
    out.text += ": " + without_numbers(result.site);
  }
  return out;
}

std::size_t non_zero_elements(const QuantizeConfig& config, const std::vector<std::uint16_t>& input) {
  return static_cast<std::size_t>(
      std::count_if(input.begin(), input.end(), [&](std::uint16_t bits) { return !is_zero(config.input, bits); }));
}

ShrunkCase shrink_failure(WorkerBackend& backend, const QuantizeConfig& config,
                          const std::vector<std::uint16_t>& input, const CallResult& original,
                          const FailureSignature& wanted, ShrinkBudget budget) {
  constexpr std::size_t kHangTries = 2, kCrashTries = 16;
  const std::size_t max_tries = wanted.outcome == Outcome::kHang    ? std::min(budget.max_tries, kHangTries)
                                : wanted.outcome == Outcome::kCrash ? std::min(budget.max_tries, kCrashTries)
                                                                    : budget.max_tries;
  Shrinker shrinker(backend, wanted, max_tries, budget.seconds);
  shrinker.start_from(ShrunkCase{config, input, original, wanted, 0});
  // 1. The shape, an axis at a time, until neither gets smaller.
  for (bool progress = true; progress && !shrinker.spent();) {
    progress = shrinker.shrink_axis(true);
    progress = shrinker.shrink_axis(false) || progress;
  }
  // 2. The elements (a hang gets no more tries: each costs a timeout).
  if (wanted.outcome != Outcome::kHang) shrinker.shrink_elements();
  ShrunkCase out = std::move(shrinker.best());
  out.tries = shrinker.tries();
  return out;
}

}  // namespace mxconform::certify
