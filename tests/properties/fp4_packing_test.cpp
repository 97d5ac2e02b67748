// The FP4 packing property (fp4_packing.cpp) for every implementation, the FP4 dtype.
#include "properties.h"
#include "property_test.h"

namespace mxconform::properties {
namespace {

class Fp4PackingTest : public PropertyTest {};

TEST_P(Fp4PackingTest, EveryStrideAndParityUnpacksToTheCodes) {
  report(check_fp4_packing(subject(), space(), settings(), current_test_id()));
}

INSTANTIATE_TEST_SUITE_P(Subjects, Fp4PackingTest, ::testing::ValuesIn(targets(true, {OutputDtype::kFloat4E2m1fnX4})),
                         target_name);

}  // namespace
}  // namespace mxconform::properties
