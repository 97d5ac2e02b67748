#!/usr/bin/env bash
# Builds examples/backend the way a backend author does, against an installed mxconform, and
# certifies it. Usage: scripts/example_backend.sh [BUILD_DIR]  (default build/ or $MXCONFORM_BUILD_DIR)
#
# BUILD_DIR must hold a configured mxconform build. The script brings its CLI up to date, installs
# the project into BUILD_DIR/install, builds the example in BUILD_DIR/example-backend with
# find_package(mxconform) through CMAKE_PREFIX_PATH, prints the path of the library, then runs
#   mxconform certify --backend <library> --level gate --report BUILD_DIR/example-certificate.yaml
# and exits with its status (0 without certifying when the CLI has no `certify` command).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-${MXCONFORM_BUILD_DIR:-$root/build}}")
prefix=$build/install
example_build=$build/example-backend

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  echo "example_backend.sh: $build is not a configured mxconform build (run scripts/build.sh first)" >&2
  exit 1
fi
cmake --build "$build" --parallel "$(nproc)" --target mxconform
cmake --install "$build" --prefix "$prefix" >/dev/null

cmake -S "$root/examples/backend" -B "$example_build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$example_build" --parallel "$(nproc)" --target mxconform_example_backend
library=$example_build/libmxconform_example_backend.so
[[ -f "$library" ]] || { echo "example_backend.sh: $library was not built" >&2; exit 1; }
echo "$library"

mxconform=$prefix/bin/mxconform
if ! "$mxconform" certify --help >/dev/null 2>&1; then
  echo "example_backend.sh: \`mxconform certify\` is not available yet; built the backend only"
  exit 0
fi
exec "$mxconform" certify --backend "$library" --level gate --report "$build/example-certificate.yaml"
