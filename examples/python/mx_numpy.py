"""MX quantization as docs/contract.md defines it, in NumPy, written to be read beside it.

    quantize(config, input_bits) -> (data, scale)

follows the convention of mxc_subject.py (config keys are the CLI's knob names; input_bits is a
uint16 [P, F] array of raw bfloat16 or float16 bits). Each step is vectorised over the whole
tensor. Besides the default neuron profile it implements two others of docs/contract.md,
"Profiles": ocp-floor (torchao's FLOOR scale, 1x32 blocks) and microxcaling (floor of log2, ties
away from zero, 1x32 or 32x1 blocks). Run as a script, it is a command subject:

    mxconform certify --backend 'cmd:python3 examples/python/mx_numpy.py'
    mxconform certify --profile ocp-floor --backend 'cmd:python3 examples/python/mx_numpy.py'

MXC_PLANTED_FAULT=ties-away plants a fault for the test suite: step 5 rounds ties away from zero
(as microxcaling does) instead of to even, which certify must catch.
"""

import os

import numpy as np

# Which elements share a scale byte: partitions x columns of a block (neuron: 8 x 4).
BLOCK_SHAPES = {"8x4": (8, 4), "1x32": (1, 32), "32x1": (32, 1)}
PROFILES = ("neuron", "ocp-floor", "microxcaling")  # what quantize() implements
E8M0_BIAS, E8M0_NAN = 127, 0xFF


class ElementFormat:
    """An element format from its exponent and mantissa widths; only the deviations are spelled out."""

    def __init__(self, name, exponent_bits, mantissa_bits, max_value, sign_bit, nan_code):
        self.name = name
        self.mantissa_bits = mantissa_bits
        self.bias = (1 << (exponent_bits - 1)) - 1
        self.min_exponent = 1 - self.bias  # of the smallest normal
        self.max_value = max_value
        self.emax = int(np.frexp(max_value)[1]) - 1  # unbiased exponent of the largest finite value
        self.sign_bit = sign_bit
        self.nan_code = nan_code  # None: NaN narrows to a signed zero (FP4)


FP4_E2M1 = ElementFormat("e2m1", 2, 1, 6.0, 0b1000, None)
FP8_E4M3FN = ElementFormat("e4m3fn", 4, 3, 448.0, 0x80, 0x7F)
FP8_E5M2 = ElementFormat("e5m2", 5, 2, 57344.0, 0x80, 0x7F)
assert (FP4_E2M1.emax, FP8_E4M3FN.emax, FP8_E5M2.emax) == (2, 8, 15)

OUTPUT_FORMATS = {
    "float4_e2m1fn_x4": FP4_E2M1,
    "float8_e4m3fn": FP8_E4M3FN,
    "float8_e5m2": FP8_E5M2,
    "float8_e4m3fn_x4": FP8_E4M3FN,
    "float8_e5m2_x4": FP8_E5M2,
}


def widen(input_bits, in_dtype):
    """Step 1: every element to fp32, exactly. float16 subnormals become fp32 normals."""
    if in_dtype == "bfloat16":
        return (input_bits.astype(np.uint32) << 16).view(np.float32)
    if in_dtype == "float16":
        return input_bits.view(np.float16).astype(np.float32)
    raise NotImplementedError(f"input dtype {in_dtype}")


def blocks(values, shape):
    """[P, F] -> [P/r, r, F/c, c] for r x c blocks: axes 1 and 3 run within a block."""
    partitions, free = values.shape
    rows, cols = shape
    return values.reshape(partitions // rows, rows, free // cols, cols)


def spread(per_block, shape):
    """[P/r, F/c] -> [P, F]: each block's value at each of its elements."""
    rows, cols = shape
    return np.repeat(np.repeat(per_block, rows, axis=0), cols, axis=1)


def block_e8m0(widened, fmt, emax_mode):
    """Steps 2 and 3: the largest fp32 exponent field of each block (a bit extract, sign ignored;
    zeros and denormals read 0, Inf and NaN 255), then max(1, max(0, field - emaxBias))."""
    fields = (widened.view(np.uint32) >> 23) & 0xFF
    max_field = blocks(fields, BLOCK_SHAPES["8x4"]).max(axis=(1, 3)).astype(np.int64)
    emax_bias = fmt.emax if emax_mode == "emax" else fmt.emax - 1
    clamp_low = np.maximum(0, max_field - emax_bias)
    return np.maximum(1, clamp_low)  # ZERO-FLOOR


def prescale(widened, e8m0):
    """Step 4: y = fp32(x * M), M = bit_cast<float>((254 - e8m0) << 23): one IEEE fp32 multiply,
    subnormals kept. At E8M0 254, M is +0.0 and Inf x 0 gives x86's default NaN (sign set)."""
    multiplier = ((254 - e8m0).astype(np.uint32) << 23).view(np.float32)
    per_element = spread(multiplier, BLOCK_SHAPES["8x4"])
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        scaled = widened * per_element
    default_nan = np.array([0xFFC00000], dtype=np.uint32).view(np.float32)[0]
    return np.where(np.isinf(widened) & (per_element == 0), default_nan, scaled)


def round_half_even(units):
    return np.rint(units)


def round_half_away(units):  # microxcaling's rule, and the planted fault in neuron
    return np.floor(np.abs(units) + 0.5) * np.sign(units)


def narrow(scaled, fmt, fp8_nan, rounding):
    """Step 5: round |y| to the element grid (ties by `rounding`), saturate, encode with the sign."""
    magnitude = np.abs(scaled.astype(np.float64))  # fp32 values are exact in fp64
    finite = np.isfinite(magnitude)
    safe = np.where(finite, magnitude, 0.0)
    # The spacing of the grid at |y|: 2^(exponent - mantissa bits), subnormals at the smallest exponent.
    exponent = np.maximum(np.frexp(safe)[1] - 1, fmt.min_exponent)
    quantum = np.ldexp(1.0, exponent - fmt.mantissa_bits)
    rounded = rounding(safe / quantum) * quantum
    rounded = np.minimum(rounded, fmt.max_value)  # saturation; Inf saturates too
    rounded = np.where(finite, rounded, fmt.max_value)
    # Encode a grid value: exponent field and mantissa, or a subnormal's mantissa alone.
    value_exponent = np.frexp(rounded)[1] - 1
    normal = rounded >= np.ldexp(1.0, fmt.min_exponent)
    subnormal_code = rounded / np.ldexp(1.0, fmt.min_exponent - fmt.mantissa_bits)
    normal_code = ((value_exponent + fmt.bias) << fmt.mantissa_bits) + (
        rounded / np.ldexp(1.0, value_exponent) - 1.0) * (1 << fmt.mantissa_bits)
    code = np.where(normal, normal_code, subnormal_code).astype(np.uint8)
    negative = np.signbit(scaled)
    code = np.where(negative, code | fmt.sign_bit, code)
    # NaN: a signed zero for FP4; the FP8 NaN knob for FP8.
    is_nan = np.isnan(scaled)
    sign = np.where(negative, fmt.sign_bit, 0).astype(np.uint8)
    if fmt.nan_code is None:
        nan_code = sign
    else:
        nan_code = sign | (fmt.nan_code if fp8_nan == "canonical" else 0)
    return np.where(is_nan, nan_code, code).astype(np.uint8)


def lane_remap(k, stride):
    """The FP4 nibble position of flat element k (docs/contract.md step 6)."""
    window = 2 * stride
    r = window * (k // window + 1) - k % window
    return np.where(k % 2 == 0, r - 2, r)


def pack(codes, fmt, lane_stride, high_parity):
    """Step 6: FP8 one byte per element; FP4 two nibbles per byte at their remapped positions."""
    partitions, free = codes.shape
    if fmt is not FP4_E2M1:
        return codes
    k = np.arange(partitions * free, dtype=np.int64)
    position = k if lane_stride == 0 else lane_remap(k, lane_stride)
    nibble_at = np.empty(partitions * free, dtype=np.uint8)
    nibble_at[position] = codes.reshape(-1)
    even, odd = nibble_at[0::2], nibble_at[1::2]
    high, low = (odd, even) if high_parity == 1 else (even, odd)
    return ((high << 4) | low).astype(np.uint8).reshape(partitions, free // 2)


def place_scales(e8m0, scale_layout):
    """Step 7: logical [P/8][F/4], or physical with logical row i at slot(i) = (i & 3) + 32 (i >> 2);
    rows no slot names are 0."""
    if scale_layout == "logical":
        return e8m0.astype(np.uint8)
    groups = np.arange(e8m0.shape[0])
    slots = (groups & 3) + 32 * (groups >> 2)
    physical = np.zeros((slots[-1] + 1, e8m0.shape[1]), dtype=np.uint8)
    physical[slots] = e8m0
    return physical


def neuron(config, widened, fmt, rounding):
    """docs/contract.md steps 2-7 after the widen."""
    e8m0 = block_e8m0(widened, fmt, config["emax_mode"])                    # steps 2, 3
    scaled = prescale(widened, e8m0)                                         # step 4
    codes = narrow(scaled, fmt, config["fp8_nan"], rounding)                 # step 5
    data = pack(codes, fmt, config["lane_stride"], config["high_parity"])    # step 6
    return data, place_scales(e8m0, config["scale_layout"])                 # step 7


def amax_profile(config, widened, fmt, rounding):
    """ocp-floor and microxcaling (docs/contract.md, "Profiles"): the scale from amax = max |x| of
    each block, logical [P/r, F/c] scales, FP4 packed c0 | c1 << 4 (lane stride 0, parity 1)."""
    shape = BLOCK_SHAPES[config["block_shape"]]
    magnitude = np.abs(widened)
    # NaN and Inf in a block (both profiles: "block NaN"): scale 0xFF, every element the NaN code.
    special = blocks(~np.isfinite(widened), shape).any(axis=(1, 3))
    amax = blocks(np.where(np.isfinite(magnitude), magnitude, np.float32(0)), shape).max(axis=(1, 3))
    if config["profile"] == "ocp-floor":
        # torchao FLOOR: the exponent bits of amax (subnormal amax reads 0) - 127 - emax, in [-127, 128].
        field = (amax.view(np.uint32) >> 23).astype(np.int64) & 0xFF
        shared = np.clip(field - E8M0_BIAS - fmt.emax, -E8M0_BIAS, E8M0_BIAS + 1)
    else:
        # microxcaling: floor(log2(amax)), 2^-126 standing for a zero block, - emax, at least -127.
        argument = np.where(amax == 0, np.float32(2.0 ** -126), amax).astype(np.float64)
        shared = np.maximum(np.frexp(argument)[1] - 1 - fmt.emax, -E8M0_BIAS)
    e8m0 = np.where(special, E8M0_NAN, shared + E8M0_BIAS)
    # The data: x * 2^(127 - E8M0). ocp-floor rounds that product to fp32 (torchao multiplies by
    # the fp32 reciprocal of the scale); microxcaling's quotient is exact in float64 but for the
    # sign of a zero (below).
    per_element = spread(np.ldexp(1.0, (E8M0_BIAS - np.where(special, 0, e8m0)).astype(np.int64)), shape)
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = widened.astype(np.float64) * per_element
        if config["profile"] == "ocp-floor":
            scaled = scaled.astype(np.float32)
        else:
            # microxcaling divides in float32: a quotient of at most 2^-150 is a zero there, and
            # its torch.sign(A) (0 for -0.0) makes that zero, and an input -0, a +0.
            scaled = np.where(np.abs(scaled) <= 2.0 ** -150, 0.0, scaled)
    codes = narrow(scaled, fmt, "canonical", rounding)
    # Under scale 0xFF every element is NaN: FP8 0x7F, FP4 +0 (no NaN code), with the sign of an
    # input NaN.
    nan_sign = np.where(np.isnan(widened) & np.signbit(widened), fmt.sign_bit, 0)
    nan_code = nan_sign | (fmt.nan_code if fmt.nan_code is not None else 0)
    codes = np.where(spread(special, shape), nan_code, codes).astype(np.uint8)
    return pack(codes, fmt, 0, 1), e8m0.astype(np.uint8)


def quantize(config, input_bits):
    profile = config.get("profile", "neuron")
    if profile not in PROFILES:
        raise NotImplementedError(f"profile {profile}")
    fmt = OUTPUT_FORMATS[config["out_dtype"]]
    planted = os.environ.get("MXC_PLANTED_FAULT") == "ties-away"
    ties_away = planted or profile == "microxcaling"
    rounding = round_half_away if ties_away else round_half_even
    widened = widen(np.asarray(input_bits, dtype=np.uint16), config["in_dtype"])  # step 1
    if profile == "neuron":
        return neuron(config, widened, fmt, rounding)
    return amax_profile(config, widened, fmt, rounding)


if __name__ == "__main__":
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import mxc_subject

    fault = os.environ.get("MXC_PLANTED_FAULT", "")
    mxc_subject.serve(quantize, name="mx_numpy", version="1.1" + (f"+fault-{fault}" if fault else ""),
                      description="NumPy reference of docs/contract.md (examples/python)",
                      capabilities={"profiles": mxc_subject.profile_mask(PROFILES),
                                    "block_shapes": mxc_subject.block_shape_mask(BLOCK_SHAPES)})
