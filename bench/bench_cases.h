#pragma once
// The case space of `mxconform bench`: input sizes, input dtypes, output families, and the
// bytes one quantize pass reads and writes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mxconform/dtype.h"
#include "mxconform/quantize_config.h"

namespace mxconform::bench {

// A [P, F] input shape, named after its input bytes (2 per element).
struct BenchSize {
  std::string_view name;
  std::size_t partitions;
  std::size_t free;
  constexpr std::size_t elements() const { return partitions * free; }
  constexpr std::size_t input_bytes() const { return elements() * sizeof(std::uint16_t); }
};

// Small enough for the exact-rational oracle (about 1 us per element); the only size it runs at.
inline constexpr BenchSize kOracleSize{"8KiB", 8, 512};
// Input, data and scales stay resident in a per-core L2 (512 KiB or more).
inline constexpr BenchSize kL2Size{"256KiB", 128, 1024};
// Far beyond any last-level cache: the kernel streams from and to DRAM.
inline constexpr BenchSize kStreamingSize{"64MiB", 4096, 8192};

static_assert(kOracleSize.input_bytes() == std::size_t{8} << 10);
static_assert(kL2Size.input_bytes() == std::size_t{256} << 10);
static_assert(kStreamingSize.input_bytes() == std::size_t{64} << 20);
static_assert(kL2Size.elements() == std::size_t{128} << 10);
static_assert(kStreamingSize.elements() == std::size_t{32} << 20);

// Output dtypes that move the same bytes share a speed-of-light kernel.
enum class OutputFamily { kFp8, kFp4 };

constexpr std::string_view name(OutputFamily family) { return family == OutputFamily::kFp8 ? "fp8" : "fp4"; }

struct OutputCase {
  std::string_view name;  // as it appears in benchmark names
  OutputDtype dtype;
  OutputFamily family;
};

inline constexpr OutputCase kOutputCases[] = {
    {"fp8_e4m3", OutputDtype::kFloat8E4m3fn, OutputFamily::kFp8},
    {"fp8_e5m2", OutputDtype::kFloat8E5m2, OutputFamily::kFp8},
    {"fp4", OutputDtype::kFloat4E2m1fnX4, OutputFamily::kFp4},
};

inline constexpr InputDtype kInputDtypes[] = {InputDtype::kBfloat16, InputDtype::kFloat16};

// The configuration every case uses: docs/contract.md defaults for the knobs, the case's dtypes
// and shape.
QuantizeConfig case_config(const BenchSize& size, InputDtype input, OutputDtype output);
// A representative output dtype of `family` (for sizing the speed-of-light kernel's output).
OutputDtype family_dtype(OutputFamily family);

// Bytes one quantize pass moves: every input element read, every data byte and every written
// scale byte (one per 32-element block, whatever the scale layout) written.
struct Traffic {
  std::size_t read_bytes;
  std::size_t written_bytes;
  std::size_t total() const { return read_bytes + written_bytes; }
};
Traffic traffic(const QuantizeConfig& config);

}  // namespace mxconform::bench
