#!/usr/bin/env python3
"""Writes examples/data/example_bf16.npy: a 32x64 bfloat16 tensor (raw <u2 bits) that shows the
summary's categories: a smooth activation-like body, a few outliers per row group, one NaN, one
Inf, a bfloat16-denormal-only block and an all-zero block. Deterministic (seed 7)."""
import numpy as np

rng = np.random.default_rng(7)
x = rng.standard_normal((32, 64)).astype(np.float32)
x[::9, ::13] *= 300.0          # outliers that set their blocks' scale
x[3, 5] = np.nan
x[17, 40] = np.inf
x[8:16, 0:4] = 2.0 ** -130     # bfloat16 denormals only: E8M0 1
x[24:32, 60:64] = 0.0          # an all-zero block: E8M0 1 (ZERO-FLOOR)
bits = (x.view(np.uint32) >> 16).astype(np.uint16)  # truncation is exact for these values' use here
np.save("examples/data/example_bf16.npy", bits)
