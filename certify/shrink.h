#pragma once
// Shrinking a failing case to a minimal repro that fails the same way: first the shape (fewer
// block rows, fewer column blocks, keeping whatever extent the failure needs), then the elements
// (zeroed, whole blocks first). A step is kept only when the smaller case has the original's
// signature: same outcome and, for a wrong result, same kind of byte, block class, element class
// and configuration (mxconform/difference.h). A shrink that would jump to another bug is refused.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "worker_backend.h"
#include "mxconform/difference.h"
#include "mxconform/quantize_config.h"

namespace mxconform::certify {

// The oracle's bytes for a call: the data and scale buffers (unnamed physical scale rows 0).
void expected_output(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                     std::vector<std::uint8_t>& data, std::vector<std::uint8_t>& scale);

// What a call's failure is, for telling one bug from another.
struct FailureSignature {
  Outcome outcome = Outcome::kPass;
  std::optional<Comparison> comparison;  // wrong results: every differing byte, the first of each kind
  std::string text;  // outcome name, then the first difference's signature or the site without numbers

  bool operator==(const FailureSignature& other) const { return text == other.text; }
};
FailureSignature signature_of(const CallResult& result, const QuantizeConfig& config,
                              const std::vector<std::uint16_t>& input, const std::vector<std::uint8_t>& expected_data,
                              const std::vector<std::uint8_t>& expected_scale);

struct ShrinkBudget {
  std::size_t max_tries = 400;  // backend calls
  double seconds = 120;         // wall time
};

struct ShrunkCase {
  QuantizeConfig config;
  std::vector<std::uint16_t> input;
  CallResult result;             // the shrunk case's own run
  FailureSignature signature;    // equal to the original's
  std::size_t tries = 0;         // backend calls spent
};

// Shrinks (config, input), whose run gave `original` with signature `wanted`, within `budget`.
// Hangs get two tries and crashes 16 (each costs a timeout or a new worker). Every candidate is a
// valid configuration within the corpus loader's limits, so the result is always loadable when
// the original is. The result fails with signature `wanted` (it is the original when nothing
// smaller does).
ShrunkCase shrink_failure(WorkerBackend& backend, const QuantizeConfig& config,
                          const std::vector<std::uint16_t>& input, const CallResult& original,
                          const FailureSignature& wanted, ShrinkBudget budget = {});

// Elements of `input` that are not +0 or -0 (of the configuration's input dtype).
std::size_t non_zero_elements(const QuantizeConfig& config, const std::vector<std::uint16_t>& input);

}  // namespace mxconform::certify
