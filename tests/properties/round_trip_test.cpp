// The round trip property (round_trip.cpp) for every implementation, the oracle included (on
// small tensors), and every output dtype.
#include "properties.h"
#include "property_test.h"

namespace mxconform::properties {
namespace {

class RoundTripTest : public PropertyTest {};

TEST_P(RoundTripTest, WithinHalfAStep) { report(check_round_trip(subject(), space(), settings(), current_test_id())); }

INSTANTIATE_TEST_SUITE_P(Subjects, RoundTripTest, ::testing::ValuesIn(targets(true)), target_name);

}  // namespace
}  // namespace mxconform::properties
