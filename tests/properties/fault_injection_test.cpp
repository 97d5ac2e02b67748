// The suite is shown to catch bugs: each fault of impl/fault_injection.h is planted in the
// "scalar-faulty" implementation (impl/ compiled again with the switch), the whole suite runs
// against it, and the test asserts that the differential property fails and shrinks the failure
// to the smallest tensor that can show the fault: one 8x4 block, or five block rows for a fault in
// the physical scale layout. Every other property that catches the fault must shrink as far. The
// differential property's full report of each caught fault is printed.
#include "fault_injection.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>

#include "oracle.h"
#include "properties.h"
#include "property_test.h"
#include "scalar_backend.h"

namespace mxconform::impl {
// For gtest's messages (found by argument-dependent lookup through the inline namespace).
void PrintTo(const FaultInfo& fault, std::ostream* out) { *out << fault.name; }
}  // namespace mxconform::impl

namespace mxconform::properties {
namespace {

using impl::Fault;
using impl::FaultInfo;

// The blocks of the smallest tensor on which `property` can show `fault`: one, or five block rows
// when the fault is in the physical scale layout (logical row 4 is the first that moves); block
// independence needs a second block to watch the changed one.
std::size_t minimal_blocks(Fault fault, std::string_view property) {
  constexpr std::size_t kFirstMovedScaleRow = 4;  // scale_slot(i) == i for i < 4
  const std::size_t blocks = fault == Fault::kLogicalScaleRows ? kFirstMovedScaleRow + 1 : 1;
  return property == "block independence" ? std::max<std::size_t>(blocks, 2) : blocks;
}

std::string fault_name(const ::testing::TestParamInfo<FaultInfo>& info) {
  std::string text(info.param.name);
  for (char& c : text) c = c == '-' ? '_' : c;
  return text;
}

class FaultInjectionTest : public ::testing::TestWithParam<FaultInfo> {
 protected:
  void TearDown() override { impl::plant_fault(Fault::kNone); }
};

TEST(FaultInjection, TheFaultyBuildIsTheScalarCodeUnderAnotherName) {
  impl::plant_fault(Fault::kNone);
  EXPECT_EQ(impl::scalar_backend().name(), "scalar-faulty");
  QuantizeCase c;
  c.config.partitions = 16;
  c.config.free = 8;
  for (std::size_t i = 0; i < 16 * 8; ++i) c.input.push_back(static_cast<std::uint16_t>(0x3F80 + 37 * i));
  EXPECT_EQ(quantize(impl::scalar_backend(), c), quantize(oracle::backend(), c)) << "no fault planted";
}

TEST_P(FaultInjectionTest, TheSuiteCatchesItAndShrinksItToTheSmallestShape) {
  const FaultInfo& fault = GetParam();
  impl::plant_fault(fault.fault);
  const Subject& subject = impl::scalar_backend();
  const RunSettings settings = settings_from_environment();
  std::vector<OutputDtype> every_output;
  for (const OutputDtypeInfo& dtype : output_dtypes()) every_output.push_back(dtype.id);

  std::printf("planted fault %s: %s\n", std::string(fault.name).c_str(), std::string(fault.description).c_str());
  bool differential_caught = false;
  for (const PropertyEntry& property : all_properties()) {
    const CaseSpace space = settings.space(
        subject, property.fp4_only ? std::vector<OutputDtype>{OutputDtype::kFloat4E2m1fnX4} : every_output);
    const PropertyOutcome outcome =
        property.check(subject, space, settings, current_test_id() + "#" + std::string(property.name));
    if (!outcome.failed()) {
      std::printf("  %-28s held on %d cases\n", std::string(property.name).c_str(), outcome.passed_cases);
      continue;
    }
    ASSERT_TRUE(outcome.repro.has_value()) << outcome.report();
    const Repro& repro = *outcome.repro;
    std::printf("  %-28s caught at case %d, shrunk in %d steps to %zux%zu (%s)\n", std::string(property.name).c_str(),
                outcome.passed_cases + 1, outcome.shrinks, repro.config.partitions, repro.config.free,
                std::string(name(repro.config.output)).c_str());
    EXPECT_FALSE(outcome.shrink_budget_hit) << outcome.report();
    const Geometry shape = geometry(repro.config);
    EXPECT_EQ(shape.block_rows * shape.block_cols, minimal_blocks(fault.fault, property.name)) << outcome.report();
    if (property.name != "differential") continue;
    differential_caught = true;
    // The shrunk case replays: the subject still disagrees with the oracle on it.
    const QuantizeCase shrunk{repro.config, repro.input};
    EXPECT_FALSE(quantize(subject, shrunk) == quantize(oracle::backend(), shrunk));
    std::printf("%s", outcome.report().c_str());
  }
  EXPECT_TRUE(differential_caught) << "the differential property missed " << fault.name;
}

INSTANTIATE_TEST_SUITE_P(Faults, FaultInjectionTest, ::testing::ValuesIn(impl::kFaults), fault_name);

}  // namespace
}  // namespace mxconform::properties
