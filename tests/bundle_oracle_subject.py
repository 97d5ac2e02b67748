"""A quantize(config, input_bits) -> (data, scale) for tests/bundle_test.sh: each call runs
`mxconform quantize --backend oracle` ($MXCONFORM) on the case, so a bundle run through
examples/python/run_bundle.py with it must certify. Not an implementation of the contract."""
import os
import subprocess
import tempfile

import numpy as np


def quantize(config, input_bits):
    with tempfile.TemporaryDirectory() as scratch:
        paths = {name: os.path.join(scratch, name + ".npy") for name in ("input", "data", "scale")}
        np.save(paths["input"], np.ascontiguousarray(input_bits, dtype="<u2"))
        subprocess.run([os.environ["MXCONFORM"], "quantize", "--backend", "oracle", "--quiet", "--threads", "1",
                        "--input", paths["input"], "--in-dtype", config["in_dtype"],
                        "--data", paths["data"], "--scale", paths["scale"], "--out-dtype", config["out_dtype"],
                        "--emax-mode", config["emax_mode"], "--fp8-nan", config["fp8_nan"],
                        "--lane-stride", str(config["lane_stride"]), "--high-parity", str(config["high_parity"]),
                        "--scale-layout", config["scale_layout"],
                        "--profile", config.get("profile", "neuron"),
                        "--block-shape", config.get("block_shape", "8x4")], check=True)
        return np.load(paths["data"]), np.load(paths["scale"])
