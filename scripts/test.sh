#!/usr/bin/env bash
# Quick start, command 2: build (installing what is missing) and run every test with ctest.
# Longer campaigns: MXCONFORM_PROPERTY_LEVEL=nightly (properties/README.md), certify --level nightly.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MXCONFORM_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure --parallel "$(nproc)"
