#pragma once
// Between the C ABI's mxc_quantize_params (backend.h) and QuantizeConfig.
#include "mxconform/backend.h"
#include "mxconform/quantize_config.h"

namespace mxconform {

// The configuration a backend receives, validated. Throws Error naming the field that is out of
// range (an enum value the ABI does not define, a struct_size too small, a broken shape rule).
QuantizeConfig config_from_params(const mxc_quantize_params& params);

// The parameters for `config`, struct_size set.
mxc_quantize_params params_from_config(const QuantizeConfig& config);

}  // namespace mxconform
