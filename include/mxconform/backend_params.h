#pragma once
// Between the C ABI's mxc_quantize_params (backend.h) and QuantizeConfig.
#include <cstddef>
#include <cstdint>

#include "mxconform/backend.h"
#include "mxconform/subject.h"
#include "mxconform/quantize_config.h"

namespace mxconform {

// The configuration a backend receives, validated. Throws Error naming the field that is out of
// range (an enum value the ABI does not define, a struct_size too small, a broken shape rule).
QuantizeConfig config_from_params(const mxc_quantize_params& params);

// The parameters for `config`, struct_size set.
mxc_quantize_params params_from_config(const QuantizeConfig& config);

// A subject behind the C ABI (mxc_backend.quantize's contract): validates the parameters and the
// buffer sizes, quantizes, and returns MXC_STATUS_OK, or MXC_STATUS_UNSUPPORTED for what the
// subject does not declare, or MXC_STATUS_ERROR with the reason in `message`. Never throws. For
// certify's worker serving a built-in, and for the test backends.
int quantize_through_abi(const Subject& subject, const mxc_quantize_params* params, const std::uint16_t* input,
                         std::uint8_t* data, std::size_t data_size, std::uint8_t* scale, std::size_t scale_size,
                         char* message, std::size_t message_size);

}  // namespace mxconform
