#!/usr/bin/env bash
# Installs the Debian packages mxconform builds with, when any is missing. Idempotent: with
# everything present it changes nothing and needs no root.
set -euo pipefail

packages=(
  cmake make g++
  libboost-dev libcli11-dev libgtest-dev librapidcheck-dev libyaml-cpp-dev libbenchmark-dev
  libpugixml-dev libssl-dev libseccomp-dev libtbb-dev python3-numpy python3-yaml libsimde-dev
)

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "bootstrap: all build dependencies are installed"
  exit 0
fi

echo "bootstrap: installing ${missing[*]}"
if ! command -v apt-get >/dev/null 2>&1; then
  echo "bootstrap: apt-get not found; install these Debian 12 packages by hand: ${missing[*]}" >&2
  exit 1
fi
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=sudo
  else
    echo "bootstrap: not root and no sudo; run as root, or install: ${missing[*]}" >&2
    exit 1
  fi
else
  SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get update -qq || ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
  echo "bootstrap: apt-get could not install: ${missing[*]} (is the network or the package list reachable?)" >&2
  exit 1
fi
echo "bootstrap: done"
