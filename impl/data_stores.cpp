#include "data_stores.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace mxconform::impl::simd {
namespace {

// `variable`'s value when it names one of the two choices (their names by name()), else `own`;
// a value that names neither is ignored with a note on stderr.
template <class Choice>
Choice from_environment(const char* variable, Choice first, Choice second, Choice own) {
  if (const char* wanted = std::getenv(variable); wanted != nullptr && *wanted != '\0') {
    if (std::strcmp(wanted, name(first)) == 0) return first;
    if (std::strcmp(wanted, name(second)) == 0) return second;
    std::fprintf(stderr, "mxconform: %s is neither %s nor %s; ignored\n", variable, name(first), name(second));
  }
  return own;
}

// A process-wide choice: made once, then overridable (force). -1: no override; otherwise the
// enum's value.
template <class Choice>
class Chosen {
 public:
  Choice get(Choice own) const {
    const int override_value = forced_.load(std::memory_order_relaxed);
    return override_value < 0 ? own : static_cast<Choice>(override_value);
  }
  void force(std::optional<Choice> choice) {
    forced_.store(choice ? static_cast<int>(*choice) : -1, std::memory_order_relaxed);
  }

 private:
  std::atomic<int> forced_{-1};
};

Chosen<Fp4Streaming> forced_fp4;
Chosen<InputPrefetch> forced_prefetch;

}  // namespace

Fp4Streaming fp4_streaming() {
  static const Fp4Streaming own = from_environment("MXCONFORM_FP4_STREAMING", Fp4Streaming::kHalfLines,
                                                   Fp4Streaming::kWholeLines, fp4_streaming_for(detect_cpu_model()));
  return forced_fp4.get(own);
}

void force_fp4_streaming(std::optional<Fp4Streaming> streaming) { forced_fp4.force(streaming); }

const char* name(Fp4Streaming streaming) {
  return streaming == Fp4Streaming::kHalfLines ? "half-lines" : "whole-lines";
}

InputPrefetch input_prefetch() {
  static const InputPrefetch own = from_environment("MXCONFORM_PREFETCH", InputPrefetch::kRowStreams, InputPrefetch::kNone,
                                                    input_prefetch_for(detect_cpu_model()));
  return forced_prefetch.get(own);
}

void force_input_prefetch(std::optional<InputPrefetch> prefetch) { forced_prefetch.force(prefetch); }

const char* name(InputPrefetch prefetch) { return prefetch == InputPrefetch::kRowStreams ? "rows" : "none"; }

}  // namespace mxconform::impl::simd
