// The registry's run-time selection: for any feature set, the default implementation is the
// fastest one those features run (avx512 > avx2 > scalar), never one whose features are missing,
// never the oracle.
#include "mxconform/registry.h"

#include <string>

#include <gtest/gtest.h>

namespace mxconform {
namespace {

CpuFeatures avx2_cpu() {
  CpuFeatures cpu;
  cpu.avx2 = cpu.fma = cpu.f16c = cpu.bmi2 = true;
  return cpu;
}

CpuFeatures avx512_cpu() {
  CpuFeatures cpu = avx2_cpu();
  cpu.avx512f = cpu.avx512bw = cpu.avx512vl = true;
  return cpu;
}

TEST(Registry, EveryKernelIsListedOnceAfterTheOracle) {
  ASSERT_FALSE(built_in_subjects().empty());
  EXPECT_EQ(built_in_subjects().front()->name(), "oracle");
  for (const char* name : {"scalar", "avx2", "avx512"}) {
    const Subject* impl = find_built_in(name);
    ASSERT_NE(impl, nullptr) << name;
    EXPECT_EQ(impl->name(), name);
  }
  EXPECT_EQ(find_built_in("avx1024"), nullptr);
}

TEST(Registry, SelectionPicksTheFastestRunnable) {
  EXPECT_EQ(best_built_in_for(CpuFeatures{}).name(), "scalar");
  EXPECT_EQ(best_built_in_for(avx2_cpu()).name(), "avx2");
  EXPECT_EQ(best_built_in_for(avx512_cpu()).name(), "avx512");
}

TEST(Registry, SelectionNeverPicksAvx512WithoutBwAndVl) {
  CpuFeatures no_vl = avx512_cpu();
  no_vl.avx512vl = false;  // e.g. Xeon Phi: F without BW/VL
  CpuFeatures no_bw = avx512_cpu();
  no_bw.avx512bw = false;
  CpuFeatures no_avx2 = avx512_cpu();
  no_avx2.avx2 = false;
  for (const CpuFeatures& cpu : {no_vl, no_bw}) {
    EXPECT_EQ(best_built_in_for(cpu).name(), "avx2") << cpu.to_string();
  }
  EXPECT_EQ(best_built_in_for(no_avx2).name(), "avx512") << "avx512 needs only BW/VL";
  for (const CpuFeatures& cpu : {CpuFeatures{}, avx2_cpu(), no_vl, no_bw, no_avx2, avx512_cpu()}) {
    const Subject& chosen = best_built_in_for(cpu);
    EXPECT_TRUE(cpu.covers(chosen.required_features())) << chosen.name() << " on " << cpu.to_string();
    EXPECT_NE(chosen.name(), "oracle");
  }
}

TEST(Registry, DefaultIsTheSelectionForThisCpu) {
  const Subject& chosen = best_built_in();
  EXPECT_EQ(&chosen, &best_built_in_for(CpuFeatures::detect()));
  EXPECT_TRUE(runnable_here(chosen));
  EXPECT_EQ(not_runnable_reason(chosen), "");
}

TEST(Registry, ReasonNamesTheMissingFeatures) {
  const Subject* avx512 = find_built_in("avx512");
  ASSERT_NE(avx512, nullptr);
  if (runnable_here(*avx512)) {
    EXPECT_EQ(not_runnable_reason(*avx512), "");
  } else {
    EXPECT_EQ(not_runnable_reason(*avx512).rfind("this CPU lacks AVX-512", 0), 0u) << not_runnable_reason(*avx512);
  }
}

}  // namespace
}  // namespace mxconform
