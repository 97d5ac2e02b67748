// The differential property (differential.cpp) for every implementation but the oracle, which
// is its reference, and every output dtype.
#include "properties.h"
#include "property_test.h"

namespace mxconform::properties {
namespace {

class DifferentialTest : public PropertyTest {};

TEST_P(DifferentialTest, EveryByteEqualsTheOracles) {
  report(check_differential(subject(), space(), settings(), current_test_id()));
}

INSTANTIATE_TEST_SUITE_P(Subjects, DifferentialTest, ::testing::ValuesIn(targets(false)), target_name);

}  // namespace
}  // namespace mxconform::properties
