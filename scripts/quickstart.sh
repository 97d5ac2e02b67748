#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, and run the main job: quantize the bundled
# example tensor to MXFP8 (e4m3fn) with the default backend, then print the summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MXCONFORM_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
mkdir -p "$build/example"
"$build/cli/mxconform" backends
echo
"$build/cli/mxconform" quantize --input "$root/examples/data/example_bf16.npy" --in-dtype bfloat16 \
  --out-dtype float8_e4m3fn --data "$build/example/data.npy" --scale "$build/example/scale.npy" --force
