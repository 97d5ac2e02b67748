// CpuFeatures: what covers() and missing() compare, how features are named, and that detect()
// reports only combinations a real CPU and OS give.
#include "mxconform/cpu_features.h"

#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace mxconform {
namespace {

CpuFeatures avx512_bw_vl() {
  CpuFeatures needed;
  needed.avx512bw = needed.avx512vl = true;
  return needed;
}

TEST(CpuFeatures, CoversNeedsEveryFeature) {
  CpuFeatures here;
  EXPECT_TRUE(here.covers(CpuFeatures{}));
  EXPECT_FALSE(here.covers(avx512_bw_vl()));
  here.avx512f = here.avx512bw = true;
  EXPECT_FALSE(here.covers(avx512_bw_vl())) << "VL missing";
  here.avx512vl = true;
  EXPECT_TRUE(here.covers(avx512_bw_vl()));
  CpuFeatures needed = avx512_bw_vl();
  needed.avx512vbmi = true;
  EXPECT_FALSE(here.covers(needed)) << "VBMI missing";
}

TEST(CpuFeatures, MissingListsOnlyAbsentNeededFeatures) {
  CpuFeatures here;
  here.avx2 = here.avx512f = here.avx512bw = true;
  CpuFeatures needed = avx512_bw_vl();
  needed.avx2 = true;
  const CpuFeatures absent = here.missing(needed);
  EXPECT_EQ(absent.to_string(), "avx512vl");
  EXPECT_EQ(here.missing(CpuFeatures{}).to_string(), "none");
}

TEST(CpuFeatures, NamesForFlagsAndReaders) {
  CpuFeatures features = avx512_bw_vl();
  EXPECT_EQ(features.to_string(), "avx512bw avx512vl");
  EXPECT_EQ(features.describe(), "AVX-512 BW/VL");
  features.avx2 = features.fma = true;
  features.avx512f = features.avx512vbmi = features.avx512bf16 = features.avx512fp16 = true;
  EXPECT_EQ(features.to_string(), "avx2 fma avx512f avx512bw avx512vl avx512vbmi avx512bf16 avx512fp16");
  EXPECT_EQ(features.describe(), "AVX2 FMA AVX-512 F/BW/VL/VBMI/BF16/FP16");
  EXPECT_EQ(CpuFeatures{}.describe(), "none");
}

TEST(CpuFeatures, DetectReportsAvx512SubsetsOnlyWithFoundation) {
  const CpuFeatures here = CpuFeatures::detect();
  std::printf("this CPU: %s\n", here.to_string().c_str());
  if (!here.avx512f) {
    EXPECT_FALSE(here.avx512bw || here.avx512vl || here.avx512vbmi || here.avx512bf16 || here.avx512fp16);
  } else {
    EXPECT_TRUE(here.avx2) << "every AVX-512 CPU has AVX2";
  }
}

// The vendor against the kernel's own reading of CPUID: /proc/cpuinfo's vendor_id line.
TEST(CpuVendor, AgreesWithProcCpuinfo) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, vendor_id;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("vendor_id", 0) == 0) {
      vendor_id = line.substr(line.find(':') + 2);
      break;
    }
  }
  if (vendor_id.empty()) GTEST_SKIP() << "no vendor_id line in /proc/cpuinfo";
  const CpuVendor expected = vendor_id == "GenuineIntel" ? CpuVendor::kIntel
                             : vendor_id == "AuthenticAMD" ? CpuVendor::kAmd
                                                           : CpuVendor::kOther;
  EXPECT_EQ(detect_cpu_vendor(), expected) << "vendor_id " << vendor_id;
  EXPECT_EQ(name(CpuVendor::kIntel), "Intel");
  EXPECT_EQ(name(CpuVendor::kAmd), "AMD");
  EXPECT_EQ(name(CpuVendor::kOther), "other");
}

// The family and model against /proc/cpuinfo's "cpu family" and "model" lines (decimal there).
TEST(CpuModel, AgreesWithProcCpuinfo) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  long family = -1, model = -1;
  while (std::getline(cpuinfo, line) && (family < 0 || model < 0)) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (line.rfind("cpu family", 0) == 0) family = std::stol(line.substr(colon + 1));
    else if (line.rfind("model", 0) == 0 && line.find_first_not_of(" \t", 5) == colon) model = std::stol(line.substr(colon + 1));
  }
  if (family < 0 || model < 0) GTEST_SKIP() << "no cpu family or model line in /proc/cpuinfo";
  const CpuModel cpu = detect_cpu_model();
  EXPECT_EQ(cpu.vendor, detect_cpu_vendor());
  EXPECT_EQ(static_cast<long>(cpu.family), family);
  EXPECT_EQ(static_cast<long>(cpu.model), model);
  EXPECT_EQ(describe(CpuModel{CpuVendor::kAmd, 0x17, 0x31}), "AMD family 0x17 model 0x31");
}

}  // namespace
}  // namespace mxconform
