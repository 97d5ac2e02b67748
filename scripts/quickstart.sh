#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, and run the main job: certify the fastest
# built-in implementation this CPU runs (avx512, avx2 or scalar) against the oracle at the gate
# level, writing the certificate to build/certificate.yaml. Then quantize the bundled example tensor to
# show the tensor CLI's summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MXCONFORM_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
mx="$build/cli/mxconform"
"$mx" backends
# The fastest built-in this CPU runs (avx512, avx2 or scalar): what quantize uses by default.
backend=$("$mx" backends | sed -n 's/^default: //p')
echo
"$mx" certify --backend "$backend" --level gate --report "$build/certificate.yaml" --force
echo "certificate: $build/certificate.yaml"
echo
mkdir -p "$build/example"
"$mx" quantize --input "$root/examples/data/example_bf16.npy" --in-dtype bfloat16 \
  --out-dtype float8_e4m3fn --data "$build/example/data.npy" --scale "$build/example/scale.npy" --force
