// The block independence property (block_independence.cpp) for every implementation, the oracle included (on
// small tensors), and every output dtype.
#include "properties.h"
#include "property_test.h"

namespace mxconform::properties {
namespace {

class BlockIndependenceTest : public PropertyTest {};

TEST_P(BlockIndependenceTest, OtherBlocksKeepTheirBytes) {
  report(check_block_independence(subject(), space(), settings(), current_test_id()));
}

INSTANTIATE_TEST_SUITE_P(Subjects, BlockIndependenceTest, ::testing::ValuesIn(targets(true)), target_name);

}  // namespace
}  // namespace mxconform::properties
