#include "properties.h"

namespace mxconform::properties {

const std::vector<PropertyEntry>& all_properties() {
  static const std::vector<PropertyEntry> kAll = {
      {"differential", check_differential, false},
      {"sign symmetry", check_sign_symmetry, false},
      {"power-of-two scaling", check_power_of_two_scaling, false},
      {"block independence", check_block_independence, false},
      {"permutation within a block", check_permutation_within_block, false},
      {"round trip", check_round_trip, false},
      {"FP4 packing", check_fp4_packing, true},
  };
  return kAll;
}

}  // namespace mxconform::properties
