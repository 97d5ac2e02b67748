#!/usr/bin/env bash
# certify through a command subject (certify/command_backend.cpp): the NumPy example is CERTIFIED
# at the gate level, in the neuron profile and in the two others it declares over the protocol's
# profile fields (ocp-floor, microxcaling in both its block shapes); a profile it does not declare
# is not supported; with its planted fault (ties away from zero) it is NOT CERTIFIED, with a
# one-block repro. Usage: command_certify_test.sh MXCONFORM PYTHON3 SOURCE_DIR
set -u
mx=$1 python=$2 src=$3
source "$(dirname "$0")/cli_checks.sh"
subject="cmd:$python $src/examples/python/mx_numpy.py"

"$mx" certify --backend "$subject" --level gate --report "$work/good.yaml" --junit "$work/good.xml" > "$work/good.txt" 2>&1
check "certify --backend CMD (NumPy example) at the gate exits 0" test $? -eq 0
check "... CERTIFIED" grep -q "^CERTIFIED" "$work/good.txt"
check "... the certificate names the script's digest" grep -q "backend_command_files_sha256:.*mx_numpy.py=" "$work/good.yaml"

# Other profiles through the protocol's profile fields: the oracle's bytes for each.
for run in "ocp-floor 1x32" "microxcaling 1x32" "microxcaling 32x1"; do
  set -- $run
  "$mx" certify --backend "$subject" --level gate --profile "$1" --block-shape "$2" > "$work/$1-$2.txt" 2>&1
  check "certify --profile $1 --block-shape $2 --backend CMD exits 0" test $? -eq 0
  check "... CERTIFIED" grep -q "^CERTIFIED" "$work/$1-$2.txt"
  check "... every generated configuration is $1 $2" bash -c "grep -E '^properties ' '$work/$1-$2.txt' | grep -vc 'profile=$1 block=$2' | grep -qx 0"
done
"$mx" certify --backend "$subject" --level gate --profile torchao-rceil > "$work/rceil.txt" 2>&1
check "a profile the subject does not declare: exits 2" test $? -eq 2
check "... declared not supported, no case run" grep -q "declared not supported. 0 cases run" "$work/rceil.txt"

mkdir "$work/repros"
MXC_PLANTED_FAULT=ties-away "$mx" certify --backend "$subject" --level gate --campaign corpus --emit-repro "$work/repros" \
  --report "$work/bad.yaml" > "$work/bad.txt" 2>&1
check "the planted fault exits 2" test $? -eq 2
check "... NOT CERTIFIED" grep -q "^NOT CERTIFIED" "$work/bad.txt"
check "... as wrong-result" grep -q "^wrong-result in corpus case" "$work/bad.txt"
first=$(ls "$work/repros" | head -1)
check "... with repro files" test -n "$first"
check "... each one block, [8, 4]" bash -c "grep -L 'shape: \[8, 4\]' '$work/repros'/*.yaml | wc -l | grep -qx 0"
# The repro replays: it fails with the fault and passes without.
MXC_PLANTED_FAULT=ties-away "$mx" replay "$work/repros/$first" --backend "$subject" > /dev/null
check "the repro fails again with the fault (exit 2)" test $? -eq 2
"$mx" replay "$work/repros/$first" --backend "$subject" > /dev/null
check "and passes without it" test $? -eq 0

finish command_certify
