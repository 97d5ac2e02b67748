#!/usr/bin/env python3
"""Run every case of an mxconform bundle through a Python quantizer.

    python3 run_bundle.py BUNDLE_DIR MODULE [--force] [--only ID ...]

BUNDLE_DIR is a directory written by `mxconform export` (docs/bundle-manifest.md). MODULE is a
module name on sys.path or a path to a .py file; it provides

    quantize(config: dict, input_bits: numpy.ndarray) -> (data, scale)

with `input_bits` a uint16 [P, F] array of raw bfloat16/float16 bits and `config` holding the
CLI's knob names: in_dtype, out_dtype, shape, emax_mode, fp8_nan, lane_stride, high_parity,
scale_layout, and the contract: profile ("neuron", "ocp-floor", ...: docs/contract.md,
"Profiles") and block_shape ("8x4", "1x32", "32x1"), as in mxc_subject.py. A manifest written
before those two fields were added is neuron with 8x4 blocks. `data` and `scale` are written as they are returned (np.save, no conversion) to the
case's `data` and `scale` paths, where `mxconform grade BUNDLE_DIR` reads and grades them: a uint8
array of the shape `mxconform quantize` writes, and in the scale rows no slot names, zeros.

A case whose quantize raises NotImplementedError is left without outputs (grade: missing-output);
any other exception is printed and the run goes on. Exit status: 0 when every case has outputs,
1 on a usage error or a bad manifest, 2 when some case has none.
"""
import argparse
import importlib
import importlib.util
import os
import sys
import tempfile

import numpy as np
import yaml

MANIFEST_FORMAT = "mxconform-bundle"
MANIFEST_VERSION = 1
CONFIG_KEYS = ("in_dtype", "out_dtype", "shape", "emax_mode", "fp8_nan", "lane_stride", "high_parity", "scale_layout")
CONTRACT_DEFAULTS = {"profile": "neuron", "block_shape": "8x4"}  # what an entry without the fields means


def load_module(name):
    if name.endswith(".py"):
        spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(name))[0], name)
        if spec is None or spec.loader is None:
            raise SystemExit(f"run_bundle: cannot load {name}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    return importlib.import_module(name)


def inside(bundle, relative):
    """The path of `relative` in the bundle; refuses absolute paths, '..' and symbolic links."""
    if not isinstance(relative, str) or os.path.isabs(relative) or ".." in relative.split("/"):
        raise SystemExit(f"run_bundle: manifest path {relative!r} is not a relative path inside the bundle")
    path = bundle
    for part in relative.split("/"):  # outputs/<export_id>/<id>.data.npy: no component a link
        path = os.path.join(path, part)
        if os.path.islink(path):
            raise SystemExit(f"run_bundle: {relative} goes through a symbolic link; bundle paths must stay inside the bundle")
    return path


def save_atomically(path, array, force):
    if os.path.lexists(path) and not force:
        raise FileExistsError(f"{path} exists (pass --force to replace it)")
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".npy.tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            np.save(out, array, allow_pickle=False)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", help="a directory written by mxconform export")
    parser.add_argument("module", help="module name or .py path providing quantize(config, input_bits)")
    parser.add_argument("--force", action="store_true", help="replace outputs that already exist")
    parser.add_argument("--only", nargs="+", metavar="ID", help="run only these case ids")
    args = parser.parse_args(argv)

    with open(os.path.join(args.bundle, "manifest.yaml"), "rb") as f:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        manifest = yaml.load(f, Loader=loader)
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise SystemExit(f"run_bundle: {args.bundle}/manifest.yaml is not an mxconform bundle manifest")
    if manifest.get("format_version") != MANIFEST_VERSION:
        raise SystemExit(f"run_bundle: manifest format_version {manifest.get('format_version')!r}; "
                         f"this runner reads {MANIFEST_VERSION}")
    module = load_module(args.module)
    wanted = set(args.only or [])
    written = unsupported = failed = 0
    for case in manifest["cases"]:
        if wanted and case["id"] not in wanted:
            continue
        config = {key: case[key] for key in CONFIG_KEYS}
        config.update({key: case.get(key, default) for key, default in CONTRACT_DEFAULTS.items()})
        input_bits = np.load(inside(args.bundle, case["input"]), allow_pickle=False)
        try:
            data, scale = module.quantize(config, input_bits)
        except NotImplementedError as why:
            unsupported += 1
            print(f"run_bundle: {case['id']}: not supported: {why}", file=sys.stderr)
            continue
        except Exception as error:  # the quantizer's own failure: the case is left without outputs
            failed += 1
            print(f"run_bundle: {case['id']}: {type(error).__name__}: {error}", file=sys.stderr)
            continue
        try:
            save_atomically(inside(args.bundle, case["data"]), np.asarray(data), args.force)
            save_atomically(inside(args.bundle, case["scale"]), np.asarray(scale), args.force)
        except FileExistsError as error:
            raise SystemExit(f"run_bundle: {error}")
        written += 1
    print(f"run_bundle: {written} cases written, {unsupported} not supported, {failed} failed")
    return 0 if unsupported == 0 and failed == 0 else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
