#pragma once
// x86 CPU features an implementation may need, detected once at run time.
#include <string>
#include <string_view>

namespace mxconform {

struct CpuFeatures {
  bool avx2 = false;
  bool fma = false;
  bool f16c = false;
  bool bmi2 = false;
  // AVX-512 subsets; each counts only when the OS saves the opmask and ZMM state, and the
  // others only with avx512f.
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512vl = false;
  bool avx512vbmi = false;
  bool avx512bf16 = false;
  bool avx512fp16 = false;

  // True when every feature `needed` sets is present here.
  bool covers(const CpuFeatures& needed) const;
  // The features `needed` sets that are absent here.
  CpuFeatures missing(const CpuFeatures& needed) const;
  // "avx2 fma f16c bmi2" style list of the set features; "none" when empty.
  std::string to_string() const;
  // The set features as a reader names them: "AVX2 FMA", "AVX-512 BW/VL"; "none" when empty.
  std::string describe() const;
  // The features of the CPU this process runs on.
  static CpuFeatures detect();
};

// Who made the CPU, from CPUID leaf 0's vendor string: kernels that tune their memory traffic to
// a vendor's write-combining behaviour ask (impl/data_stores.h).
enum class CpuVendor { kIntel, kAmd, kOther };
CpuVendor detect_cpu_vendor();
// "Intel", "AMD" or "other".
std::string_view name(CpuVendor vendor);

// The vendor with CPUID leaf 1's display family and model (extended fields folded in as
// /proc/cpuinfo's "cpu family" and "model" show them): AMD EPYC Rome is family 0x17, Milan and
// Genoa 0x19, Turin 0x1A; Intel's server cores are family 6.
struct CpuModel {
  CpuVendor vendor = CpuVendor::kOther;
  unsigned family = 0;
  unsigned model = 0;
};
CpuModel detect_cpu_model();
// "AMD family 0x17 model 0x31" style.
std::string describe(const CpuModel& cpu);

}  // namespace mxconform
