"""Speak mxconform's subject protocol, so that a quantizer written in Python can be certified.

The author writes one function

    quantize(config: dict, input_bits: numpy.ndarray) -> (data, scale)

and hands it to `serve`. mxconform starts the script once per worker
(`mxconform certify --backend 'cmd:python3 my_quantizer.py'`), sends it one request per case over
stdin and reads the answers from stdout. docs/subject-protocol.md describes the frames.

`config` has the CLI's own knob names as keys:
    in_dtype      "bfloat16" | "float16"
    out_dtype     "float4_e2m1fn_x4" | "float8_e4m3fn" | "float8_e5m2" | "float8_e4m3fn_x4" |
                  "float8_e5m2_x4"
    shape         [P, F]
    emax_mode     "emax" | "emax-1"
    fp8_nan       "canonical" | "zero"
    lane_stride   int (0: no FP4 lane remap)
    high_parity   0 | 1
    scale_layout  "physical" | "logical"
    profile       "neuron" (the default contract, docs/contract.md) or another profile's name
                  ("ocp-floor", "microxcaling", ...: docs/contract.md, "Profiles")
    block_shape   "8x4" | "1x32" | "32x1": which elements share one scale byte
`input_bits` is a uint16 array of shape [P, F]: raw bfloat16 or float16 bits, partition-major.
The function returns `data` (uint8, the bytes `mxconform quantize` writes to its data .npy:
[P, F] for FP8, [P, F/2] for FP4) and `scale` (uint8, the shape of `mxconform quantize`'s scale
.npy; in the physical layout, rows no slot names are 0). A quantizer that declares only the
neuron profile (the default of `serve`) always gets profile "neuron" and block shape "8x4". Raising NotImplementedError declines
the configuration (not supported); any other exception is reported as an error status with its
message.

While `serve` runs, stdout belongs to the protocol: print() and anything else written to file
descriptor 1 go to stderr instead, which mxconform captures and shows with a failing case.
"""

import os
import struct
import sys

import numpy as np

PROTOCOL_VERSION = 1
MAGIC = 0x5343584D  # b"MXCS"
HELLO, INFO, QUANTIZE, RESULT = 1, 2, 3, 4
STATUS_OK, STATUS_UNSUPPORTED, STATUS_ERROR = 0, 1, 2

HEADER = struct.Struct("<IIQ")  # magic, kind, payload length
# struct_size, version, six masks, strides, three lengths, reserved, then the appended profile and
# block-shape masks (offsets 56 and 60).
INFO_FIXED = struct.Struct("<IIIIIIIIQIIIIII")
QUANTIZE_FIXED = struct.Struct("<IIIIIIIIQQQQ")  # the 64 bytes every version-1 harness sends
QUANTIZE_PROFILE = struct.Struct("<II")  # at offset 64 when struct_size covers it: profile, block shape
RESULT_FIXED = struct.Struct("<IIIIQQ")  # struct_size, status, message length, reserved, data, scale

IN_DTYPES = {0: "bfloat16", 1: "float16"}
OUT_DTYPES = {2: "float4_e2m1fn_x4", 5: "float8_e4m3fn", 7: "float8_e5m2", 8: "float8_e4m3fn_x4", 9: "float8_e5m2_x4"}
EMAX_MODES = {0: "emax", 1: "emax-1"}
FP8_NAN = {0: "canonical", 1: "zero"}
SCALE_LAYOUTS = {0: "physical", 1: "logical"}
PROFILES = {0: "neuron", 1: "nki-golden", 2: "nki-golden-kernel", 3: "ocp-floor", 4: "torchao-rceil",
            5: "transformer-engine-mxfp8", 6: "microxcaling", 7: "torchao-ceil", 8: "torchao-even"}
BLOCK_SHAPES = {0: "8x4", 1: "1x32", 2: "32x1"}


def _mask(values):
    return sum(1 << v for v in values)


def profile_mask(names):
    """The profiles mask of `names` ("neuron", "ocp-floor", ...)."""
    ids = {name: i for i, name in PROFILES.items()}
    return _mask(ids[n] for n in names)


def block_shape_mask(names):
    """The block_shapes mask of `names` ("8x4", "1x32", "32x1")."""
    ids = {name: i for i, name in BLOCK_SHAPES.items()}
    return _mask(ids[n] for n in names)


# Every dtype and knob value of protocol version 1, in the neuron profile with 8x4 blocks; lane
# strides: bit s for stride s, bit 63 for 63 and above.
EVERYTHING = {
    "input_dtypes": _mask(IN_DTYPES),
    "output_dtypes": _mask(OUT_DTYPES),
    "emax_modes": _mask(EMAX_MODES),
    "fp8_nan_policies": _mask(FP8_NAN),
    "scale_layouts": _mask(SCALE_LAYOUTS),
    "fp4_high_parities": 0b11,
    "fp4_lane_strides": (1 << 64) - 1,
    "profiles": profile_mask(["neuron"]),
    "block_shapes": block_shape_mask(["8x4"]),
}


class ProtocolError(Exception):
    pass


def _read_exactly(fd, size):
    """`size` bytes from fd, or None at the end of input before the first byte."""
    chunks, got = [], 0
    while got < size:
        chunk = os.read(fd, min(size - got, 1 << 20))
        if not chunk:
            if got == 0:
                return None
            raise ProtocolError(f"stdin ended inside a frame, after {got} of {size} bytes")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _read_frame(fd, kind):
    head = _read_exactly(fd, HEADER.size)
    if head is None:
        return None
    magic, got_kind, length = HEADER.unpack(head)
    if magic != MAGIC or got_kind != kind:
        raise ProtocolError(f"expected a frame of kind {kind}, got magic {magic:#x} kind {got_kind}")
    payload = _read_exactly(fd, length)
    if payload is None and length > 0:
        raise ProtocolError("stdin ended after a frame header")
    return payload or b""


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _frame(kind, payload_parts):
    length = sum(len(p) for p in payload_parts)
    return b"".join([HEADER.pack(MAGIC, kind, length), *payload_parts])


def _config_of(payload):
    """The config of a quantize payload; a record without the profile fields is neuron, 8x4."""
    struct_size = struct.unpack_from("<I", payload)[0]
    if struct_size < QUANTIZE_FIXED.size or struct_size > len(payload):
        raise ProtocolError(f"quantize: struct_size {struct_size} outside {QUANTIZE_FIXED.size}..{len(payload)}")
    profile, block_shape = 0, 0
    if struct_size >= QUANTIZE_FIXED.size + QUANTIZE_PROFILE.size:
        profile, block_shape = QUANTIZE_PROFILE.unpack_from(payload, QUANTIZE_FIXED.size)
    (_, in_dtype, out_dtype, emax_mode, fp8_nan, lane_stride, high_parity, scale_layout,
     partitions, free, data_bytes, scale_bytes) = QUANTIZE_FIXED.unpack_from(payload)
    config = {
        "in_dtype": IN_DTYPES[in_dtype],
        "out_dtype": OUT_DTYPES[out_dtype],
        "shape": [partitions, free],
        "emax_mode": EMAX_MODES[emax_mode],
        "fp8_nan": FP8_NAN[fp8_nan],
        "lane_stride": lane_stride,
        "high_parity": high_parity,
        "scale_layout": SCALE_LAYOUTS[scale_layout],
        "profile": PROFILES[profile],
        "block_shape": BLOCK_SHAPES[block_shape],
    }
    return config, struct_size, data_bytes, scale_bytes


def _result(status, message=b"", data=b"", scale=b""):
    message = message[:4096]
    fixed = RESULT_FIXED.pack(RESULT_FIXED.size, status, len(message), 0, len(data), len(scale))
    return _frame(RESULT, [fixed, message, data, scale])


def serve(quantize, name, version="", description="", capabilities=None):
    """Answers mxconform's requests with `quantize` until stdin ends. `capabilities`: masks as in
    EVERYTHING (the default: neuron only, 8x4 only); mxconform certifies only what they declare and
    sends nothing else. Declare other profiles with profile_mask() and block_shape_mask()."""
    masks = dict(EVERYTHING, **(capabilities or {}))
    # The protocol keeps the real stdout; fd 1 and sys.stdout now lead to stderr.
    protocol_out = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    stdin = 0

    hello = _read_frame(stdin, HELLO)
    if hello is None:
        return
    texts = [t.encode("utf-8")[:4096] for t in (name, version, description)]
    fixed = INFO_FIXED.pack(INFO_FIXED.size, PROTOCOL_VERSION, masks["input_dtypes"], masks["output_dtypes"],
                            masks["emax_modes"], masks["fp8_nan_policies"], masks["scale_layouts"],
                            masks["fp4_high_parities"], masks["fp4_lane_strides"], *(len(t) for t in texts), 0,
                            masks["profiles"], masks["block_shapes"])
    _write_all(protocol_out, _frame(INFO, [fixed, *texts]))

    while True:
        payload = _read_frame(stdin, QUANTIZE)
        if payload is None:
            return
        config, struct_size, data_bytes, scale_bytes = _config_of(payload)
        partitions, free = config["shape"]
        input_bits = np.frombuffer(payload, dtype="<u2", offset=struct_size).reshape(partitions, free)
        try:
            data, scale = quantize(config, input_bits)
            data = np.ascontiguousarray(data, dtype=np.uint8).tobytes()
            scale = np.ascontiguousarray(scale, dtype=np.uint8).tobytes()
            answer = _result(STATUS_OK, data=data, scale=scale)
        except NotImplementedError as error:
            answer = _result(STATUS_UNSUPPORTED, str(error).encode("utf-8", "replace"))
        except Exception as error:  # the subject's own failure: reported, and the next call comes
            answer = _result(STATUS_ERROR, f"{type(error).__name__}: {error}".encode("utf-8", "replace"))
        _write_all(protocol_out, answer)
