#include "block_explanation.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <sstream>

#include "element_syntax.h"
#include "mxconform/difference.h"
#include "mxconform/error.h"
#include "mxconform/formats.h"
#include "mxconform/safe_text.h"
#include "oracle.h"
#include "text_table.h"
#include "value_text.h"

namespace mxconform::reports {

using namespace corpus;  // the case, its syntaxes and value text
namespace {

using oracle::Rational;
using oracle::Value;

constexpr int kMultiplierFieldBase = 2 * Float32::kBias;  // the seed's 254
static_assert(kMultiplierFieldBase == 254);
constexpr std::uint32_t kNibbleBits = 4;
constexpr std::uint32_t kNibbleMask = 0x0F;

// The code of element `index` in a data buffer laid out as `config` says (docs/contract.md step 6).
std::uint32_t code_in(const QuantizeConfig& config, const std::vector<std::uint8_t>& data, std::size_t index) {
  if (!is_fp4(config.output)) return data[index];
  const std::size_t position = oracle::nibble_position(index, config.fp4_lane_stride);
  const bool high = static_cast<int>(position % 2) == config.fp4_high_parity;
  const std::uint8_t byte = data[position / 2];
  return high ? byte >> kNibbleBits : byte & kNibbleMask;
}

std::size_t scale_offset(const QuantizeConfig& config, std::size_t group, std::size_t column_block) {
  const std::size_t row = config.scale_layout == ScaleLayout::kPhysical ? oracle::physical_scale_row(group) : group;
  return row * geometry(config).block_cols + column_block;
}

struct Outputs {
  std::vector<std::uint8_t> data;
  std::vector<std::uint8_t> scale;
};

Outputs run(const Subject& subject, const QuantizeConfig& config, const std::vector<std::uint16_t>& input) {
  const Geometry g = geometry(config);
  Outputs out{std::vector<std::uint8_t>(g.data_bytes), std::vector<std::uint8_t>(g.scale_bytes)};
  subject.quantize(config, input.data(), out.data.data(), out.scale.data());
  return out;
}

Outputs expected_outputs(const CorpusCase& c) {
  Outputs out;
  for (const ExpectedByte& b : c.data) out.data.push_back(b.value_or(0));
  for (const ExpectedByte& b : c.scale) out.scale.push_back(b.value_or(0));
  return out;
}

// One element on the oracle's path.
struct ElementStep {
  std::size_t k;      // position in the block: row k / 4, column k % 4
  std::size_t index;  // row-major in the tensor
  std::size_t row, col;
  std::uint16_t bits;
  Value x;
  int field;
  Value y;
  std::uint32_t code;
};

struct BlockPath {
  int max_field = 0;
  int e8m0 = 0;
  Value m;
  std::vector<ElementStep> elements;
};

BlockPath oracle_path(const QuantizeConfig& config, const std::vector<std::uint16_t>& input, std::size_t group,
                      std::size_t column_block) {
  BlockPath path;
  const FormatInfo in_format = input_format(config.input);
  for (std::size_t k = 0; k < kBlockSize; ++k) {
    ElementStep e{};
    e.k = k;
    e.row = group * kBlockRows + k / kBlockCols;
    e.col = column_block * kBlockCols + k % kBlockCols;
    e.index = e.row * config.free + e.col;
    e.bits = input[e.index];
    e.x = oracle::decode(in_format, e.bits);
    e.field = oracle::fp32_exponent_field(e.x);
    path.max_field = std::max(path.max_field, e.field);
    path.elements.push_back(e);
  }
  path.e8m0 = oracle::block_e8m0(path.max_field, config);
  path.m = oracle::multiplier(path.e8m0);
  for (ElementStep& e : path.elements) {
    e.y = oracle::prescale(e.x, path.m);
    e.code = oracle::narrow(e.y, info(config.output).element, config.fp8_nan);
  }
  return path;
}

// The element grid's non-negative finite magnitudes, by code.
std::vector<Rational> grid_of(const FormatInfo& format) {
  std::vector<Rational> grid;
  for (std::uint32_t code = 0; code <= format.max_code; ++code) grid.push_back(oracle::decode(format, code).magnitude);
  return grid;
}

Rational power_of_two(int exponent) {
  const boost::multiprecision::cpp_int one = 1;
  return exponent >= 0 ? Rational(one << exponent) : Rational(one, one << -exponent);
}

int code_digits(const QuantizeConfig& config) { return is_fp4(config.output) ? 1 : 2; }

std::string grid_point(const std::vector<Rational>& grid, std::size_t code, int digits) {
  return format_value(false, grid[code]) + " (" + format_hex(static_cast<std::uint32_t>(code), digits) + ")";
}

// The rounding decision of step 5 and why, for the table of steps 4-5.
struct Decision {
  std::string below, above, reason;
  Style style = Style::kPlain;
};

Decision decide(const ElementStep& e, const QuantizeConfig& config, const std::vector<Rational>& grid) {
  const FormatInfo element = element_format(config.output);
  const int digits = code_digits(config);
  const std::uint32_t sign = element.sign_mask;
  const std::uint32_t magnitude_code = e.code & (sign - 1);
  Decision d;
  if (e.y.is_nan()) {
    d.style = Style::kBad;
    if (is_fp4(config.output)) {
      d.reason = "NaN: FP4 has no NaN, gives a signed zero";
    } else if (config.fp8_nan == Fp8NanPolicy::kCanonical) {
      d.reason = "NaN: sign|" + format_hex(sign - 1, digits) + " (fp8-nan canonical)";
    } else {
      d.reason = "NaN: a signed zero (fp8-nan zero)";
    }
    return d;
  }
  const std::size_t max_code = grid.size() - 1;
  const std::string max_text = format_value(false, grid[max_code]);
  if (e.y.is_inf()) {
    d.below = grid_point(grid, max_code, digits);
    d.reason = "Inf: saturates to the signed max " + max_text;
    d.style = Style::kWarn;
    return d;
  }
  const Rational& y = e.y.magnitude;
  const auto above = std::lower_bound(grid.begin(), grid.end(), y);
  if (above == grid.end()) {
    // The grid point past the max would be max + one unit in its last place, 2^(emax - mantissa
    // bits); RNE rounds up to it from the midpoint on (at the midpoint when the max code is odd).
    const Rational half_ulp = power_of_two(element.emax - element.mantissa_bits - 1);
    const Rational midpoint = grid[max_code] + half_ulp;
    const bool max_code_odd = max_code % 2 == 1;
    const bool rounds_past = y > midpoint || (y == midpoint && max_code_odd);
    d.below = grid_point(grid, max_code, digits);
    d.above = "-";
    d.reason = rounds_past ? "would round up past the max " + max_text + ": saturates"
                           : "above the max " + max_text + ": saturates";
    d.style = Style::kWarn;
    return d;
  }
  const std::size_t hi = static_cast<std::size_t>(above - grid.begin());
  const std::size_t lo = *above == y || hi == 0 ? hi : hi - 1;
  d.below = grid_point(grid, lo, digits);
  d.above = grid_point(grid, hi, digits);
  if (lo == hi) {
    d.reason = "exact";
  } else if (y - grid[lo] == grid[hi] - y) {
    d.reason = "tie: to the even code " + format_hex(magnitude_code, digits);
    d.style = Style::kNote;
  } else {
    d.reason = y - grid[lo] < grid[hi] - y ? "nearer below" : "nearer above";
  }
  if (e.y.negative && magnitude_code == 0 && y != 0) d.reason += "; rounds to -0 (sign kept)";
  return d;
}

class Explanation {
 public:
  explicit Explanation(const ExplainRequest& request) : r_(request), colour_(request.colour) {}

  std::string text() {
    const QuantizeConfig& config = r_.config;
    validate(config);
    const Geometry g = geometry(config);
    if (r_.input.size() != config.partitions * config.free) {
      throw Error("explain: " + std::to_string(r_.input.size()) + " input elements for shape [" +
                  std::to_string(config.partitions) + ", " + std::to_string(config.free) + "]");
    }
    if (r_.group >= g.block_rows || r_.column_block >= g.block_cols) {
      throw Error("explain: block (" + std::to_string(r_.group) + ", " + std::to_string(r_.column_block) +
                  ") is outside the tensor's " + std::to_string(g.block_rows) + " x " + std::to_string(g.block_cols) +
                  " blocks");
    }
    path_ = oracle_path(config, r_.input, r_.group, r_.column_block);
    if (r_.corpus_case != nullptr) expected_ = expected_outputs(*r_.corpus_case);
    if (r_.subject != nullptr) actual_ = run(*r_.subject, config, r_.input);
    header();
    widen_and_measure();
    scale();
    prescale_and_narrow();
    pack();
    scale_layout();
    return out_.str();
  }

 private:
  void heading(const std::string& text) { out_ << "\n" << styled(text, Style::kHeading, colour_) << "\n"; }
  void line(const std::string& text) { out_ << "  " << text << "\n"; }

  void header() {
    const QuantizeConfig& config = r_.config;
    out_ << styled("mxconform explain: block (" + std::to_string(r_.group) + ", " + std::to_string(r_.column_block) +
                       "), rows " + std::to_string(path_.elements.front().row) + ".." +
                       std::to_string(path_.elements.back().row) + ", columns " +
                       std::to_string(path_.elements.front().col) + ".." + std::to_string(path_.elements.back().col),
                   Style::kHeading, colour_)
         << "\n";
    if (const CorpusCase* c = r_.corpus_case) {
      // A corpus file's text reaches the terminal escaped (safe_text.h).
      about("case", safe_text(c->id) + "  (" + safe_text(to_string(c->location)) + ")");
      about("why", safe_multiline_text(c->why));
      about("source", safe_multiline_text(c->source));
    }
    about("config", describe(config));
    if (r_.subject != nullptr) about("subject", safe_text(r_.subject->name()) + " (its codes in the 'subject' column)");
  }

  // "  label    text", the text wrapped at kWrapColumn with continuation lines under its start.
  void about(const std::string& label, const std::string& text) {
    constexpr std::size_t kLabelWidth = 9;
    constexpr std::size_t kWrapColumn = 100;
    std::istringstream words(text);
    std::string current = "  " + label + std::string(kLabelWidth - label.size(), ' ');
    const std::size_t start = current.size();
    bool first_word = true;
    for (std::string word; words >> word; first_word = false) {
      if (!first_word && current.size() + 1 + word.size() > kWrapColumn) {
        out_ << current << "\n";
        current = std::string(start, ' ');
        first_word = true;
      }
      current += (first_word ? "" : " ") + word;
    }
    out_ << current << "\n";
  }

  void widen_and_measure() {
    heading("Steps 1-2. Widen to fp32 exactly; measure each fp32 exponent field (bits >> 23) & 0xFF, sign ignored");
    const bool f16 = r_.config.input == InputDtype::kFloat16;
    TextTable table({">k", ">row", ">col", "bits", "value", ">field", "note"});
    const FormatInfo in_format = input_format(r_.config.input);
    const std::uint32_t exponent_mask = ((1u << in_format.exponent_bits) - 1) << in_format.mantissa_bits;
    for (const ElementStep& e : path_.elements) {
      std::string note;
      Style style = Style::kPlain;
      if (e.field == path_.max_field) {
        note = "block max";
        style = Style::kNote;
      }
      const bool subnormal_input = (e.bits & exponent_mask) == 0 && e.x.magnitude != 0;
      if (subnormal_input) {
        note += std::string(note.empty() ? "" : "; ") +
                (f16 ? "float16 subnormal: an fp32 normal" : "fp32 denormal: field 0");
      }
      if (!e.x.is_finite()) note += std::string(note.empty() ? "" : "; ") + "Inf/NaN: field 255";
      table.add_row({std::to_string(e.k), std::to_string(e.row), std::to_string(e.col), format_bit_pattern(e.bits),
                     format_value(e.x), {std::to_string(e.field), style}, {note, style}});
    }
    out_ << table.render("  ", colour_);
    line("block max exponent field: " + styled(std::to_string(path_.max_field), Style::kNote, colour_));
  }

  void scale() {
    const int bias = emax_bias(r_.config);
    heading("Step 3. E8M0 = max(1, max(0, maxField - emaxBias)), emaxBias " + std::to_string(bias) + " (" +
            std::string(name(r_.config.output)) + ", " + std::string(name(r_.config.emax_mode)) + ")");
    const int difference = path_.max_field - bias;
    std::string clamps;
    if (difference < 0) {
      clamps = std::to_string(difference) + " < 0: CLAMP-LOW to 0, then ZERO-FLOOR to 1";
    } else if (difference == 0) {
      clamps = "0: ZERO-FLOOR to 1";
    } else {
      clamps = "no clamp";
    }
    line(std::to_string(path_.max_field) + " - " + std::to_string(bias) + " = " + std::to_string(difference) + ": " +
         styled(clamps, difference <= 0 ? Style::kWarn : Style::kPlain, colour_));
    line("E8M0 = " + styled(std::to_string(path_.e8m0), Style::kHeading, colour_) + " (scale 2^" +
         std::to_string(path_.e8m0 - E8M0::kBias) + ")" + compare_e8m0());
  }

  std::string compare_e8m0() const {
    const std::size_t offset = scale_offset(r_.config, r_.group, r_.column_block);
    std::string text;
    if (expected_) {
      const int expected = expected_->scale[offset];
      text += expected == path_.e8m0 ? "; the case expects it" : "; the case expects " + std::to_string(expected) + " (MISMATCH)";
    }
    if (actual_) {
      const int actual = actual_->scale[offset];
      text += actual == path_.e8m0 ? "; the subject wrote it"
                                   : "; " + styled("the subject wrote " + std::to_string(actual), Style::kBad, colour_);
    }
    return text;
  }

  void prescale_and_narrow() {
    const std::uint32_t m_bits = static_cast<std::uint32_t>(kMultiplierFieldBase - path_.e8m0) << Float32::kMantissaBits;
    heading("Step 4. Multiplier M = bit_cast<float>((254 - E8M0) << 23)");
    line("(254 - " + std::to_string(path_.e8m0) + ") << 23 = " + format_hex(m_bits, 8) + " = " + format_value(path_.m) +
         (path_.m.magnitude == 0 ? "  (+0.0: E8M0 254, the edge of docs/contract.md step 4)" : ""));
    heading("Steps 4-5. Prescale y = fp32(x * M) (RNE, subnormals kept), narrow to " +
            std::string(name(r_.config.output)) + " (RNE ties to even, saturating)");
    const FormatInfo element = element_format(r_.config.output);
    const std::vector<Rational> grid = grid_of(element);
    const int digits = code_digits(r_.config);
    std::vector<std::string> headers = {">k", "x", "y = fp32(x*M)", "grid <= |y|", "grid >= |y|", "code", "decision"};
    if (expected_) headers.push_back("case");
    if (actual_) headers.push_back("subject");
    TextTable table(headers);
    for (const ElementStep& e : path_.elements) {
      const Decision d = decide(e, r_.config, grid);
      std::string y = format_value(e.y);
      if (e.y.is_nan() && e.x.is_inf()) y += " (Inf*0)";
      std::vector<Cell> row = {std::to_string(e.k), format_value(e.x), y, d.below, d.above,
                               {format_hex(e.code, digits), Style::kHeading}, {d.reason, d.style}};
      if (expected_) row.push_back(code_cell(code_in(r_.config, expected_->data, e.index), e.code, digits));
      if (actual_) row.push_back(code_cell(code_in(r_.config, actual_->data, e.index), e.code, digits));
      table.add_row(row);
    }
    out_ << table.render("  ", colour_);
  }

  Cell code_cell(std::uint32_t code, std::uint32_t oracle_code, int digits) const {
    if (code == oracle_code) return {format_hex(code, digits), Style::kDim};
    return {format_hex(code, digits) + " DIFFERS", Style::kBad};
  }

  void pack() {
    const QuantizeConfig& config = r_.config;
    const int digits = code_digits(config);
    if (!is_fp4(config.output)) {
      heading("Step 6. Pack FP8: one byte per element, row-major: byte = row * F + col");
      for (std::size_t row = 0; row < kBlockRows; ++row) {
        const ElementStep& first = path_.elements[row * kBlockCols];
        std::string bytes;
        for (std::size_t col = 0; col < kBlockCols; ++col) {
          bytes += (col ? " " : "") + format_hex(path_.elements[row * kBlockCols + col].code, 2).substr(2);
        }
        line("data[" + std::to_string(first.index) + ".." + std::to_string(first.index + kBlockCols - 1) + "] = " + bytes);
      }
      return;
    }
    heading("Step 6. Pack FP4: position r = lane_remap(k, " + std::to_string(config.fp4_lane_stride) +
            ") (k itself for stride 0), byte r >> 1, HIGH nibble when (r & 1) == high_parity " +
            std::to_string(config.fp4_high_parity));
    TextTable table({">k", ">index", "code", ">position", ">byte", "nibble"});
    std::vector<std::size_t> bytes;
    for (const ElementStep& e : path_.elements) {
      const std::size_t position = oracle::nibble_position(e.index, config.fp4_lane_stride);
      const bool high = static_cast<int>(position % 2) == config.fp4_high_parity;
      table.add_row({std::to_string(e.k), std::to_string(e.index), format_hex(e.code, digits), std::to_string(position),
                     std::to_string(position / 2), high ? "high" : "low"});
      bytes.push_back(position / 2);
    }
    out_ << table.render("  ", colour_);
    std::sort(bytes.begin(), bytes.end());
    bytes.erase(std::unique(bytes.begin(), bytes.end()), bytes.end());
    line("bytes holding this block's nibbles (the other nibble may belong to another block):");
    TextTable packed({">byte", "low", "high", "oracle"});
    for (std::size_t byte : bytes) {
      std::vector<Cell> row(4);
      row[0] = std::to_string(byte);
      std::uint32_t value = 0;
      for (std::size_t position = 2 * byte; position < 2 * byte + 2; ++position) {
        const std::size_t index = oracle::nibble_position(position, config.fp4_lane_stride);  // an involution
        const std::uint32_t code = code_of(index);
        const bool high = static_cast<int>(position % 2) == config.fp4_high_parity;
        value |= high ? code << kNibbleBits : code;
        row[high ? 2 : 1] = "element " + std::to_string(index) + " = " + format_hex(code, 1);
      }
      row[3] = {format_hex(value, 2), Style::kHeading};
      packed.add_row(row);
    }
    out_ << packed.render("    ", colour_);
  }

  // The oracle's code of any element of the tensor (elements of other blocks share FP4 bytes).
  std::uint32_t code_of(std::size_t index) {
    const std::size_t row = index / r_.config.free;
    const std::size_t col = index % r_.config.free;
    const std::size_t group = row / kBlockRows;
    const std::size_t column_block = col / kBlockCols;
    if (group == r_.group && column_block == r_.column_block) {
      return path_.elements[(row % kBlockRows) * kBlockCols + col % kBlockCols].code;
    }
    const BlockPath other = oracle_path(r_.config, r_.input, group, column_block);
    return other.elements[(row % kBlockRows) * kBlockCols + col % kBlockCols].code;
  }

  void scale_layout() {
    const QuantizeConfig& config = r_.config;
    const std::size_t offset = scale_offset(config, r_.group, r_.column_block);
    const std::size_t cols = geometry(config).block_cols;
    heading("Step 7. Scale layout: " + std::string(name(config.scale_layout)));
    if (config.scale_layout == ScaleLayout::kPhysical) {
      line("logical row " + std::to_string(r_.group) + " -> physical row slot(" + std::to_string(r_.group) +
           ") = (g & 3) + 32 * (g >> 2) = " + std::to_string(offset / cols));
    } else {
      line("logical row " + std::to_string(r_.group) + " is row " + std::to_string(r_.group));
    }
    line("scale byte " + std::to_string(offset) + " = row * F/4 + c = " + format_hex(static_cast<std::uint32_t>(path_.e8m0), 2) +
         " (" + std::to_string(path_.e8m0) + ")" + compare_e8m0());
  }

  const ExplainRequest& r_;
  const bool colour_;
  BlockPath path_;
  std::optional<Outputs> expected_;
  std::optional<Outputs> actual_;
  std::ostringstream out_;
};

}  // namespace

std::string explain_block(const ExplainRequest& request) { return Explanation(request).text(); }

std::pair<std::size_t, std::size_t> first_differing_block(const CorpusCase& c, const Subject& subject) {
  if (!subject.unsupported_reason(c.config).empty()) return {0, 0};
  const Outputs expected = expected_outputs(c);
  const Outputs actual = run(subject, c.config, c.input);
  CompareOptions every;
  every.max_reported = std::numeric_limits<std::size_t>::max();
  const Comparison comparison = compare(c.config, c.input, expected.data, expected.scale, actual.data, actual.scale, every);
  // The first in block order, which is not the bytes' order: a data byte's elements may lie in
  // different blocks (FP4 lane strides), and a block spans several rows of the tensor.
  std::optional<std::pair<std::size_t, std::size_t>> first;
  const auto consider = [&first](std::size_t group, std::size_t column_block) {
    if (!first || std::make_pair(group, column_block) < *first) first = std::make_pair(group, column_block);
  };
  for (const Difference& d : comparison.scale) consider(d.group, d.column_block);
  for (const Difference& d : comparison.data) {
    for (const ElementDifference& e : d.elements) consider(e.group, e.column_block);
  }
  return first.value_or(std::make_pair(std::size_t{0}, std::size_t{0}));
}

}  // namespace mxconform::reports
