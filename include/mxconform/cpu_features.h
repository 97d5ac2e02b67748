#pragma once
// x86 CPU features an implementation may need, detected once at run time.
#include <string>

namespace mxconform {

struct CpuFeatures {
  bool avx2 = false;
  bool fma = false;
  bool f16c = false;
  bool bmi2 = false;

  // True when every feature `needed` sets is present here.
  bool covers(const CpuFeatures& needed) const;
  // "avx2 fma f16c bmi2" style list of the set features; "none" when empty.
  std::string to_string() const;
  // The features of the CPU this process runs on.
  static CpuFeatures detect();
};

}  // namespace mxconform
