#pragma once
// Strict parsers for the values of command-line flags and environment variables. Numbers are
// plain decimal: digits only, no sign, space, 0x prefix or octal reading; every value is range
// checked. Each throws Error "<flag> '<text>': expected ..." naming the flag.
#include <cstddef>
#include <cstdint>
#include <string>

namespace mxconform::cli {

// A whole number from 0 to `max` (inclusive).
std::uint64_t parse_unsigned(const std::string& flag, const std::string& text, std::uint64_t max);

inline constexpr std::size_t kMaxThreads = 1024;
// A thread count: a whole number from 1 to kMaxThreads.
std::size_t parse_threads(const std::string& flag, const std::string& text);

// FP4 high parity: "0" or "1".
int parse_parity(const std::string& flag, const std::string& text);

inline constexpr double kMaxTimeoutSeconds = 86400;
// Seconds: a finite decimal number (fraction and exponent allowed) > 0 and <= kMaxTimeoutSeconds.
double parse_timeout_seconds(const std::string& flag, const std::string& text);

inline constexpr std::size_t kMaxShards = 1000000;
struct Shard {
  std::size_t index = 0;  // 0 <= index < count
  std::size_t count = 1;  // 1 <= count <= kMaxShards
};
// "I/N", exactly: two plain decimal numbers and one slash.
Shard parse_shard(const std::string& flag, const std::string& text);
// The shard from GTEST_SHARD_INDEX and GTEST_TOTAL_SHARDS: none set is {0, 1}; both must be set
// when one is, each a plain decimal number, with the same bounds as parse_shard.
Shard shard_from_environment();

// Bytes: a whole number with an optional suffix K, M, G or T (powers of 1024, either case);
// "0" stays 0. Refuses a value above 2^64 - 1.
std::uint64_t parse_byte_size(const std::string& flag, const std::string& text);

}  // namespace mxconform::cli
