#!/usr/bin/env bash
# Quick start, command 2: build (installing what is missing) and run every test with ctest.
# MXCONFORM_LONG_TESTS=1 also registers the long campaigns.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MXCONFORM_BUILD_DIR:-$root/build}
long=OFF
[[ "${MXCONFORM_LONG_TESTS:-0}" == 1 ]] && long=ON
"$root/scripts/build.sh" -DMXCONFORM_LONG_TESTS=$long
cd "$build"
ctest --output-on-failure --parallel "$(nproc)"
