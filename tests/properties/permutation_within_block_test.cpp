// The permutation within block property (permutation_within_block.cpp) for every implementation, the oracle included
// (on small tensors), and every output dtype.
#include "properties.h"
#include "property_test.h"

namespace mxconform::properties {
namespace {

class PermutationWithinBlockTest : public PropertyTest {};

TEST_P(PermutationWithinBlockTest, CodesFollowTheirElements) {
  report(check_permutation_within_block(subject(), space(), settings(), current_test_id()));
}

INSTANTIATE_TEST_SUITE_P(Subjects, PermutationWithinBlockTest, ::testing::ValuesIn(targets(true)), target_name);

}  // namespace
}  // namespace mxconform::properties
