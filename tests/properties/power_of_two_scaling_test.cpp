// The power of two scaling property (power_of_two_scaling.cpp) for every implementation, the oracle included (on
// small tensors), and every output dtype.
#include "properties.h"
#include "property_test.h"

namespace mxconform::properties {
namespace {

class PowerOfTwoScalingTest : public PropertyTest {};

TEST_P(PowerOfTwoScalingTest, MovesOnlyTheE8m0) {
  report(check_power_of_two_scaling(subject(), space(), settings(), current_test_id()));
}

INSTANTIATE_TEST_SUITE_P(Subjects, PowerOfTwoScalingTest, ::testing::ValuesIn(targets(true)), target_name);

}  // namespace
}  // namespace mxconform::properties
