#include "mxconform/cpu_features.h"

#include <cstdio>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace mxconform {
namespace {

// Every feature with its to_string() and describe() names; describe() joins the AVX-512 subsets
// as "AVX-512 BW/VL".
struct FeatureName {
  bool CpuFeatures::*member;
  const char* flag;      // as /proc/cpuinfo spells it, near enough
  const char* readable;  // AVX-512 subsets: the part after "AVX-512 "
  bool avx512;
};

constexpr FeatureName kFeatures[] = {
    {&CpuFeatures::avx2, "avx2", "AVX2", false},
    {&CpuFeatures::fma, "fma", "FMA", false},
    {&CpuFeatures::f16c, "f16c", "F16C", false},
    {&CpuFeatures::bmi2, "bmi2", "BMI2", false},
    {&CpuFeatures::avx512f, "avx512f", "F", true},
    {&CpuFeatures::avx512bw, "avx512bw", "BW", true},
    {&CpuFeatures::avx512vl, "avx512vl", "VL", true},
    {&CpuFeatures::avx512vbmi, "avx512vbmi", "VBMI", true},
    {&CpuFeatures::avx512bf16, "avx512bf16", "BF16", true},
    {&CpuFeatures::avx512fp16, "avx512fp16", "FP16", true},
};

bool bit(unsigned word, int index) { return (word >> index) & 1; }

}  // namespace

bool CpuFeatures::covers(const CpuFeatures& needed) const {
  for (const FeatureName& feature : kFeatures) {
    if (needed.*feature.member && !(this->*feature.member)) return false;
  }
  return true;
}

CpuFeatures CpuFeatures::missing(const CpuFeatures& needed) const {
  CpuFeatures absent;
  for (const FeatureName& feature : kFeatures) absent.*feature.member = needed.*feature.member && !(this->*feature.member);
  return absent;
}

std::string CpuFeatures::to_string() const {
  std::string out;
  for (const FeatureName& feature : kFeatures) {
    if (!(this->*feature.member)) continue;
    if (!out.empty()) out += ' ';
    out += feature.flag;
  }
  return out.empty() ? "none" : out;
}

std::string CpuFeatures::describe() const {
  std::string out, avx512;
  for (const FeatureName& feature : kFeatures) {
    if (!(this->*feature.member)) continue;
    if (feature.avx512) {
      avx512 += (avx512.empty() ? "" : "/") + std::string(feature.readable);
    } else {
      out += (out.empty() ? "" : " ") + std::string(feature.readable);
    }
  }
  if (!avx512.empty()) out += (out.empty() ? "AVX-512 " : " AVX-512 ") + avx512;
  return out.empty() ? "none" : out;
}

CpuFeatures CpuFeatures::detect() {
  CpuFeatures features;
#if defined(__x86_64__) || defined(__i386__)
  // CPUID leaf 1 (ECX: FMA bit 12, OSXSAVE bit 27, F16C bit 29) and leaf 7 (EBX: AVX2 bit 5,
  // BMI2 bit 8); the AVX features count only when the OS saves the YMM state (XCR0 bits 1-2).
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return features;
  const bool osxsave = bit(ecx, 27);
  bool ymm_state = false;
  bool zmm_state = false;
  if (osxsave) {
    unsigned xcr0_low = 0, xcr0_high = 0;
    __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    ymm_state = (xcr0_low & 0b110) == 0b110;
    // AVX-512 also needs the opmask (bit 5), ZMM0-15 upper halves (bit 6) and ZMM16-31 (bit 7).
    zmm_state = ymm_state && (xcr0_low & 0b1110'0000) == 0b1110'0000;
  }
  features.fma = ymm_state && bit(ecx, 12);
  features.f16c = ymm_state && bit(ecx, 29);
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
    const unsigned max_subleaf = eax;
    features.avx2 = ymm_state && bit(ebx, 5);
    features.bmi2 = bit(ebx, 8);
    // Leaf 7 subleaf 0: EBX AVX512F bit 16, AVX512BW bit 30, AVX512VL bit 31; ECX AVX512_VBMI
    // bit 1; EDX AVX512_FP16 bit 23. Subleaf 1: EAX AVX512_BF16 bit 5.
    features.avx512f = zmm_state && bit(ebx, 16);
    features.avx512bw = features.avx512f && bit(ebx, 30);
    features.avx512vl = features.avx512f && bit(ebx, 31);
    features.avx512vbmi = features.avx512f && bit(ecx, 1);
    features.avx512fp16 = features.avx512f && bit(edx, 23);
    if (max_subleaf >= 1 && __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx)) {
      features.avx512bf16 = features.avx512f && bit(eax, 5);
    }
  }
#endif
  return features;
}

CpuVendor detect_cpu_vendor() {
#if defined(__x86_64__) || defined(__i386__)
  // Leaf 0: the vendor string in EBX, EDX, ECX, four characters each.
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return CpuVendor::kOther;
  char vendor[12];
  for (int i = 0; i < 4; ++i) {
    vendor[i] = static_cast<char>(ebx >> (8 * i));
    vendor[4 + i] = static_cast<char>(edx >> (8 * i));
    vendor[8 + i] = static_cast<char>(ecx >> (8 * i));
  }
  const std::string_view text(vendor, sizeof vendor);
  if (text == "GenuineIntel") return CpuVendor::kIntel;
  if (text == "AuthenticAMD") return CpuVendor::kAmd;
#endif
  return CpuVendor::kOther;
}

CpuModel detect_cpu_model() {
  CpuModel cpu;
  cpu.vendor = detect_cpu_vendor();
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
    const unsigned base_family = (eax >> 8) & 0xF, base_model = (eax >> 4) & 0xF;
    const unsigned extended_family = (eax >> 20) & 0xFF, extended_model = (eax >> 16) & 0xF;
    cpu.family = base_family == 0xF ? base_family + extended_family : base_family;
    cpu.model = base_family == 0xF || base_family == 0x6 ? base_model | extended_model << 4 : base_model;
  }
#endif
  return cpu;
}

std::string describe(const CpuModel& cpu) {
  char text[64];
  std::snprintf(text, sizeof text, "%s family 0x%X model 0x%X", std::string(name(cpu.vendor)).c_str(), cpu.family, cpu.model);
  return text;
}

std::string_view name(CpuVendor vendor) {
  switch (vendor) {
    case CpuVendor::kIntel: return "Intel";
    case CpuVendor::kAmd: return "AMD";
    case CpuVendor::kOther: break;
  }
  return "other";
}

}  // namespace mxconform
