#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, and run the main job: certify the built-in
# AVX2 implementation against the oracle at the gate level (the scalar one on a CPU without AVX2),
# writing the certificate to build/certificate.yaml. Then quantize the bundled example tensor to
# show the tensor CLI's summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MXCONFORM_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
mx="$build/cli/mxconform"
"$mx" backends
backend=$("$mx" backends | awk '$1 == "avx2" && $2 == "yes" { print "avx2" }')
if [[ -z "$backend" ]]; then
  echo "quickstart: this CPU cannot run the avx2 backend; certifying the scalar one instead"
  backend=scalar
fi
echo
"$mx" certify --backend "$backend" --level gate --report "$build/certificate.yaml" --force
echo "certificate: $build/certificate.yaml"
echo
mkdir -p "$build/example"
"$mx" quantize --input "$root/examples/data/example_bf16.npy" --in-dtype bfloat16 \
  --out-dtype float8_e4m3fn --data "$build/example/data.npy" --scale "$build/example/scale.npy" --force
