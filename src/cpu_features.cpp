#include "mxconform/cpu_features.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

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
  // CPUID leaf 1 (ECX: FMA bit 12, OSXSAVE bit 27, F16C bit 29) and leaf 7 (EBX: AVX2 bit 5,
  // BMI2 bit 8); the AVX features count only when the OS saves the YMM state (XCR0 bits 1-2).
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return features;
  const bool osxsave = (ecx >> 27) & 1;
  bool ymm_state = false;
  if (osxsave) {
    unsigned xcr0_low = 0, xcr0_high = 0;
    __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    ymm_state = (xcr0_low & 0b110) == 0b110;
  }
  features.fma = ymm_state && ((ecx >> 12) & 1);
  features.f16c = ymm_state && ((ecx >> 29) & 1);
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
    features.avx2 = ymm_state && ((ebx >> 5) & 1);
    features.bmi2 = (ebx >> 8) & 1;
  }
#endif
  return features;
}

}  // namespace mxconform
