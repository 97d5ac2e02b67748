"""A command subject that misbehaves on purpose, for tests/command_subject_test.sh.

    hostile_subject.py MODE

It answers correctly (examples/python/mx_numpy.py) except for calls whose output dtype is
float8_e5m2_x4, where MODE decides what it does instead:
    garbage               writes bytes that are not a frame
    dies-mid-frame        writes half a result frame and exits
    hangs                 never answers
    wrong-size            answers with one data byte too few
    stdout-outside-frame  writes a line of text to stdout before its (correct) frame
    wrong-version         (at the handshake) claims protocol version 2
    kills-mxconform       sends SIGKILL to its parent (mxconform)
    closes-stdout         (after the handshake) closes its stdout, then reads its stdin to the end
Its info record is the earlier revision's 56 bytes, without the profile masks: the harness must
take it for neuron-only with 8x4 blocks, and never send it another profile (it exits if it is).
"""

import os
import signal
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "python"))

import mx_numpy  # noqa: E402
import mxc_subject as wire  # noqa: E402

# The info record before the profile masks were appended (docs/subject-protocol.md).
EARLIER_INFO = struct.Struct("<IIIIIIIIQIIII")
MODES = ("garbage", "dies-mid-frame", "hangs", "wrong-size", "stdout-outside-frame", "wrong-version",
         "kills-mxconform", "closes-stdout")


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode not in MODES:
        sys.exit(f"hostile_subject.py: mode must be one of {', '.join(MODES)}")
    out = 1
    if wire._read_frame(0, wire.HELLO) is None:
        return
    version = 2 if mode == "wrong-version" else wire.PROTOCOL_VERSION
    m = wire.EVERYTHING
    texts = [b"hostile", mode.encode(), b"misbehaves on float8_e5m2_x4"]
    fixed = EARLIER_INFO.pack(EARLIER_INFO.size, version, m["input_dtypes"], m["output_dtypes"], m["emax_modes"],
                                 m["fp8_nan_policies"], m["scale_layouts"], m["fp4_high_parities"], m["fp4_lane_strides"],
                                 *(len(t) for t in texts), 0)
    wire._write_all(out, wire._frame(wire.INFO, [fixed, *texts]))
    if mode == "closes-stdout":
        os.close(out)
        while os.read(0, 65536):
            pass
        return
    while True:
        payload = wire._read_frame(0, wire.QUANTIZE)
        if payload is None:
            return
        config, struct_size, _, _ = wire._config_of(payload)
        if config["profile"] != "neuron" or config["block_shape"] != "8x4":
            sys.exit(f"hostile_subject.py: sent {config['profile']} {config['block_shape']}, which it never declared")
        bits = mx_numpy.np.frombuffer(payload, dtype="<u2", offset=struct_size).reshape(config["shape"])
        data, scale = mx_numpy.quantize(config, bits)
        data, scale = data.tobytes(), scale.tobytes()
        answer = wire._result(wire.STATUS_OK, data=data, scale=scale)
        if config["out_dtype"] != "float8_e5m2_x4":
            wire._write_all(out, answer)
            continue
        print(f"hostile_subject.py: {mode} on {config['out_dtype']} {config['shape']}", file=sys.stderr, flush=True)
        if mode == "garbage":
            wire._write_all(out, b"\x1b[31mnot a frame\x00\xff" * 4)
        elif mode == "dies-mid-frame":
            wire._write_all(out, answer[: len(answer) // 2])
            os._exit(3)
        elif mode == "hangs":
            time.sleep(3600)
        elif mode == "wrong-size":
            wire._write_all(out, wire._result(wire.STATUS_OK, data=data[:-1], scale=scale))
        elif mode == "stdout-outside-frame":
            wire._write_all(out, b"debug: about to answer\n" + answer)
        elif mode == "kills-mxconform":
            os.kill(os.getppid(), signal.SIGKILL)
            wire._write_all(out, answer)


if __name__ == "__main__":
    main()
