#include "mxconform/cpu_features.h"

namespace mxconform {

bool CpuFeatures::covers(const CpuFeatures& needed) const {
  return (avx2 || !needed.avx2) && (fma || !needed.fma) && (f16c || !needed.f16c) &&
         (bmi2 || !needed.bmi2);
}

std::string CpuFeatures::to_string() const {
  std::string out;
  auto add = [&](bool present, const char* feature) {
    if (!present) return;
    if (!out.empty()) out += ' ';
    out += feature;
  };
  add(avx2, "avx2");
  add(fma, "fma");
  add(f16c, "f16c");
  add(bmi2, "bmi2");
  return out.empty() ? "none" : out;
}

CpuFeatures CpuFeatures::detect() {
  CpuFeatures features;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  features.avx2 = __builtin_cpu_supports("avx2");
  features.fma = __builtin_cpu_supports("fma");
  features.f16c = __builtin_cpu_supports("f16c");
  features.bmi2 = __builtin_cpu_supports("bmi2");
#endif
  return features;
}

}  // namespace mxconform
