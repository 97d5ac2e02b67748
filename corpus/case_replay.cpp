#include "case_replay.h"

#include <exception>

#include "byte_syntax.h"
#include "value_text.h"

namespace mxconform::corpus {
namespace {

constexpr std::uint8_t kNeverWrittenFill = 0xFF;  // above every E8M0 byte the contract writes

// The expected bytes with `never_written` in place of each byte that must never be written.
std::vector<std::uint8_t> bytes_of(const std::vector<ExpectedByte>& expected) {
  std::vector<std::uint8_t> out;
  out.reserve(expected.size());
  for (const ExpectedByte& byte : expected) out.push_back(byte.value_or(kNeverWrittenFill));
  return out;
}

std::vector<std::uint8_t> complement_of(const std::vector<ExpectedByte>& expected) {
  std::vector<std::uint8_t> out;
  out.reserve(expected.size());
  for (const ExpectedByte& byte : expected) out.push_back(byte ? static_cast<std::uint8_t>(~*byte) : kNeverWrittenFill);
  return out;
}

std::string block_text(std::size_t group, std::size_t column_block) {
  return "block (" + std::to_string(group) + ", " + std::to_string(column_block) + ")";
}

}  // namespace

std::string to_string(const Difference& d) {
  std::string text = std::string(d.scale ? "scale" : "data") + " byte " + std::to_string(d.offset);
  if (d.scale) text += " (row " + std::to_string(d.row) + ")";
  const ExpectedByte expected = d.named_row ? ExpectedByte(d.expected) : std::nullopt;
  text += ": expected " + to_string(expected) + ", actual " + format_hex(d.actual, 2);
  if (d.scale) {
    if (!d.named_row) return text + "; a row no slot names must never be written";
    return text + "; the E8M0 of " + block_text(d.group, d.column_block);
  }
  for (const ElementDifference& e : d.elements) {
    const int digits = e.high_nibble ? 1 : 2;
    const std::string nibble = e.high_nibble ? std::string(*e.high_nibble ? "high" : "low") + " nibble: " : "";
    text += "; " + nibble + "element " + std::to_string(e.index) + " (row " + std::to_string(e.index / d.config.free) +
            ", col " + std::to_string(e.index % d.config.free) + ") code " + format_hex(e.expected_code, digits) +
            " -> " + format_hex(e.actual_code, digits) + ", " + block_text(e.group, e.column_block) + " E8M0 " +
            std::to_string(e.expected_e8m0);
    if (e.expected_e8m0 != e.actual_e8m0) text += " (actual " + std::to_string(e.actual_e8m0) + ")";
  }
  return text;
}

ReplayResult replay_case(const CorpusCase& c, const Subject& subject, std::size_t max_reported) {
  ReplayResult result;
  result.reason = subject.unsupported_reason(c.config);
  if (!result.reason.empty()) {
    result.outcome = Outcome::kUnsupported;
    return result;
  }
  std::vector<std::uint8_t> data = complement_of(c.data);
  std::vector<std::uint8_t> scale = complement_of(c.scale);
  try {
    subject.quantize(c.config, c.input.data(), data.data(), scale.data());
  } catch (const SubjectFailure& failure) {
    result.outcome = failure.outcome();  // a crash, hang, ... in a worker: reported as itself
    result.reason = failure.what();
    return result;
  } catch (const std::exception& error) {
    result.outcome = Outcome::kError;
    result.reason = std::string("quantize threw: ") + error.what();
    return result;
  }
  CompareOptions options;
  options.max_reported = max_reported;
  options.check_unnamed_rows = true;
  result.comparison = compare(c.config, c.input, bytes_of(c.data), bytes_of(c.scale), data, scale, options);
  if (!result.comparison.equal()) result.outcome = Outcome::kWrongResult;
  return result;
}

}  // namespace mxconform::corpus
