// The sign symmetry property (sign_symmetry.cpp) for every implementation, the oracle included (on
// small tensors), and every output dtype.
#include "properties.h"
#include "property_test.h"

namespace mxconform::properties {
namespace {

class SignSymmetryTest : public PropertyTest {};

TEST_P(SignSymmetryTest, NegationFlipsOnlySignBits) {
  report(check_sign_symmetry(subject(), space(), settings(), current_test_id()));
}

INSTANTIATE_TEST_SUITE_P(Subjects, SignSymmetryTest, ::testing::ValuesIn(targets(true)), target_name);

}  // namespace
}  // namespace mxconform::properties
