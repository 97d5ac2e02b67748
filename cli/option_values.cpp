#include "option_values.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "mxconform/error.h"

namespace mxconform::cli {
namespace {

[[noreturn]] void refuse(const std::string& flag, const std::string& text, const std::string& expected) {
  throw Error(flag + " '" + text + "': expected " + expected);
}

// `digits` as a number when it is 1 or more decimal digits whose value is at most `max`.
bool decimal(const std::string& digits, std::uint64_t max, std::uint64_t& value) {
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return false;
  value = 0;
  for (const char digit : digits) {
    const auto d = static_cast<std::uint64_t>(digit - '0');
    if (d > max || value > (max - d) / 10) return false;
    value = value * 10 + d;
  }
  return true;
}

bool shard_parts(const std::string& index_text, const std::string& count_text, Shard& shard) {
  std::uint64_t index = 0, count = 0;
  if (!decimal(count_text, kMaxShards, count) || count == 0) return false;
  if (!decimal(index_text, count - 1, index)) return false;
  shard = {static_cast<std::size_t>(index), static_cast<std::size_t>(count)};
  return true;
}

const std::string kShardRule = "I/N with 1 <= N <= " + std::to_string(kMaxShards) + " and 0 <= I < N, decimal digits only";

}  // namespace

std::uint64_t parse_unsigned(const std::string& flag, const std::string& text, std::uint64_t max) {
  std::uint64_t value = 0;
  if (!decimal(text, max, value)) refuse(flag, text, "a whole number from 0 to " + std::to_string(max));
  return value;
}

std::size_t parse_threads(const std::string& flag, const std::string& text) {
  std::uint64_t value = 0;
  if (!decimal(text, kMaxThreads, value) || value == 0) {
    refuse(flag, text, "a thread count from 1 to " + std::to_string(kMaxThreads));
  }
  return static_cast<std::size_t>(value);
}

int parse_parity(const std::string& flag, const std::string& text) {
  if (text != "0" && text != "1") refuse(flag, text, "0 or 1");
  return text == "1" ? 1 : 0;
}

double parse_timeout_seconds(const std::string& flag, const std::string& text) {
  const std::string expected = "seconds, a number greater than 0 and at most " +
                               std::to_string(static_cast<long>(kMaxTimeoutSeconds));
  // Decimal notation only: strtod alone would also take spaces, hex, "inf" and "nan".
  const bool decimal_syntax = !text.empty() && (text[0] == '.' || (text[0] >= '0' && text[0] <= '9')) &&
                              text.find_first_not_of("0123456789.eE+-") == std::string::npos;
  if (!decimal_syntax) refuse(flag, text, expected);
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(seconds) || !(seconds > 0) || seconds > kMaxTimeoutSeconds) {
    refuse(flag, text, expected);
  }
  return seconds;
}

Shard parse_shard(const std::string& flag, const std::string& text) {
  const std::size_t slash = text.find('/');
  Shard shard;
  if (slash == std::string::npos || !shard_parts(text.substr(0, slash), text.substr(slash + 1), shard)) {
    refuse(flag, text, kShardRule);
  }
  return shard;
}

Shard shard_from_environment() {
  const char* index = std::getenv("GTEST_SHARD_INDEX");
  const char* count = std::getenv("GTEST_TOTAL_SHARDS");
  if (index == nullptr && count == nullptr) return {};
  if (index == nullptr || count == nullptr) {
    throw Error(std::string(index == nullptr ? "GTEST_TOTAL_SHARDS" : "GTEST_SHARD_INDEX") + " is set but " +
                (index == nullptr ? "GTEST_SHARD_INDEX" : "GTEST_TOTAL_SHARDS") + " is not; set both, or use --shard I/N");
  }
  Shard shard;
  if (!shard_parts(index, count, shard)) {
    throw Error("GTEST_SHARD_INDEX='" + std::string(index) + "' GTEST_TOTAL_SHARDS='" + count + "': expected decimal digits only, with 1 <= GTEST_TOTAL_SHARDS <= " + std::to_string(kMaxShards) +
                " and 0 <= GTEST_SHARD_INDEX < GTEST_TOTAL_SHARDS");
  }
  return shard;
}

std::uint64_t parse_byte_size(const std::string& flag, const std::string& text) {
  const std::string expected = "bytes, a whole number with an optional suffix K, M, G or T (powers of 1024), 0 for no limit";
  std::string digits = text;
  unsigned shift = 0;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'K': case 'k': shift = 10; break;
      case 'M': case 'm': shift = 20; break;
      case 'G': case 'g': shift = 30; break;
      case 'T': case 't': shift = 40; break;
      default: break;
    }
    if (shift != 0) digits.pop_back();
  }
  std::uint64_t value = 0;
  if (!decimal(digits, std::numeric_limits<std::uint64_t>::max() >> shift, value)) refuse(flag, text, expected);
  return value << shift;
}

}  // namespace mxconform::cli
