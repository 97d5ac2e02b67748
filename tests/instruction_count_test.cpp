// The single-stepping counter of `mxconform bench --count-instructions` (bench/instruction_count.h).
#include "instruction_count.h"

#include <gtest/gtest.h>

namespace mxconform::bench {
namespace {

constexpr int kNops = 100;

// Exactly kNops more instructions than `no_nops`, by construction: the same call and return,
// plus kNops one-byte nops the compiler cannot remove or merge.
__attribute__((noinline)) void hundred_nops() {
  __asm__ volatile(".rept %c0\n\tnop\n\t.endr" ::"i"(kNops) : "memory");
}
__attribute__((noinline)) void no_nops() { __asm__ volatile("" ::: "memory"); }

TEST(InstructionCount, CountsTheInstructionsAddedToACall) {
  std::string why_not;
  const std::optional<std::uint64_t> with_nops = count_instructions(hundred_nops, &why_not);
  if (!with_nops && why_not.find("refused") != std::string::npos) GTEST_SKIP() << why_not;
  ASSERT_TRUE(with_nops.has_value()) << why_not;
  const std::optional<std::uint64_t> without = count_instructions(no_nops, &why_not);
  ASSERT_TRUE(without.has_value()) << why_not;
  EXPECT_EQ(*with_nops - *without, static_cast<std::uint64_t>(kNops));
}

TEST(InstructionCount, AnEmptyCallCostsAFewInstructions) {
  // The overhead of the child's stop is subtracted: what is left is the call through
  // std::function, well under a hundred instructions.
  std::string why_not;
  const std::optional<std::uint64_t> count = count_instructions([] {}, &why_not);
  if (!count && why_not.find("refused") != std::string::npos) GTEST_SKIP() << why_not;
  ASSERT_TRUE(count.has_value()) << why_not;
  EXPECT_LT(*count, 100u);
}

}  // namespace
}  // namespace mxconform::bench
