#include "data_stores.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace mxconform::impl::simd {
namespace {

// -1: no override; otherwise an Fp4Streaming value.
std::atomic<int> forced{-1};

Fp4Streaming own_choice() {
  if (const char* wanted = std::getenv("MXCONFORM_FP4_STREAMING"); wanted != nullptr && *wanted != '\0') {
    if (std::strcmp(wanted, "half-lines") == 0) return Fp4Streaming::kHalfLines;
    if (std::strcmp(wanted, "whole-lines") == 0) return Fp4Streaming::kWholeLines;
    std::fputs("mxconform: MXCONFORM_FP4_STREAMING is neither half-lines nor whole-lines; ignored\n", stderr);
  }
  return fp4_streaming_for(detect_cpu_model());
}

}  // namespace

Fp4Streaming fp4_streaming() {
  static const Fp4Streaming chosen = own_choice();
  const int override_value = forced.load(std::memory_order_relaxed);
  return override_value < 0 ? chosen : static_cast<Fp4Streaming>(override_value);
}

void force_fp4_streaming(std::optional<Fp4Streaming> streaming) {
  forced.store(streaming ? static_cast<int>(*streaming) : -1, std::memory_order_relaxed);
}

const char* name(Fp4Streaming streaming) {
  return streaming == Fp4Streaming::kHalfLines ? "half-lines" : "whole-lines";
}

}  // namespace mxconform::impl::simd
