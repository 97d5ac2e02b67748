#!/usr/bin/env bash
# Hostile command subjects (tests/subjects/hostile_subject.py): each misbehaviour is an outcome
# of its own, the run completes (the other cases pass), and nothing the subject wrote reaches the
# report unescaped. Usage: command_hostile_test.sh MXCONFORM PYTHON3 SOURCE_DIR
set -u
mx=$1 python=$2 src=$3
source "$(dirname "$0")/cli_checks.sh"
hostile="$src/tests/subjects/hostile_subject.py"
corpus="$src/corpus/cases/x4_dtypes.yaml"  # 6 cases, 2 of them float8_e5m2_x4 (where it misbehaves)

expect_outcome() {  # MODE OUTCOME
  local mode=$1 outcome=$2
  "$mx" certify --backend "cmd:$python $hostile $mode" --campaign corpus --corpus "$corpus" --timeout 0.5 \
    --report "$work/$mode.yaml" > "$work/$mode.txt" 2>&1
  check "$mode: exits 2" test $? -eq 2
  check "$mode: counted as $outcome" grep -q "^      $outcome: 2$" "$work/$mode.yaml"
  check "$mode: the run completes, the other cases pass" grep -q "^      pass: [1-9]" "$work/$mode.yaml"
  check "$mode: reported as $outcome" grep -q "^$outcome in corpus case x4.e5m2-x4" "$work/$mode.txt"
  check "$mode: no raw escape byte in the report or on stdout" bash -c "! grep -q $'\x1b' '$work/$mode.txt' '$work/$mode.yaml'"
}
expect_outcome garbage protocol-error
expect_outcome dies-mid-frame crash
check "dies-mid-frame: says where it ended" grep -q "ended mid-frame, after" "$work/dies-mid-frame.txt"
expect_outcome hangs hang
expect_outcome wrong-size wrong-size
expect_outcome stdout-outside-frame stray-output
check "stdout-outside-frame: shows the stray text" grep -q "debug: about to answer" "$work/stdout-outside-frame.txt"
# Its seccomp filter kills a command that signals mxconform: a crash, and the run goes on.
expect_outcome kills-mxconform crash
check "kills-mxconform: the subject, not mxconform, died of the filter" grep -q "signal 31" "$work/kills-mxconform.yaml"
check "a fresh process after each failure" grep -Eq "^workers_started: ([3-9]|[1-9][0-9]+)" "$work/hangs.yaml"

# A subject that closes its stdout after its handshake: every call finds it gone, and the message
# says it ended before its first call (not "after answering the previous call", which it never did).
"$mx" certify --backend "cmd:$python $hostile closes-stdout" --campaign corpus --corpus "$corpus" --timeout 2 \
  --report "$work/closes.yaml" > "$work/closes.txt" 2>&1
check "closes-stdout: exits 2" test $? -eq 2
check "closes-stdout: says it ended after its handshake" grep -q "it ended after its handshake, before its first call" "$work/closes.txt"
check "closes-stdout: never says a previous call was answered" bash -c "! grep -q 'after answering the previous call' '$work/closes.txt' '$work/closes.yaml'"

"$mx" certify --backend "cmd:$python $hostile wrong-version" --campaign corpus --corpus "$corpus" \
  --report "$work/version.yaml" > "$work/version.txt" 2>&1
check "wrong-version: exits 2" test $? -eq 2
check "wrong-version: names both versions" grep -q "speaks subject protocol version 2; this mxconform speaks version 1" "$work/version.txt"

# Its info record is the 56-byte one written before the profile masks: neuron and 8x4 only. A
# certify of another profile sends it nothing (it would exit, a crash, on any non-neuron request).
"$mx" certify --backend "cmd:$python $hostile wrong-size" --profile ocp-floor --campaign corpus --campaign properties \
  --report "$work/earlier.yaml" > "$work/earlier.txt" 2>&1
check "earlier info record, --profile ocp-floor: exits 2" test $? -eq 2
check "... every configuration declared not supported, no case run" grep -q "declared not supported. 0 cases run" "$work/earlier.txt"
check "... no crash" bash -c "! grep -q 'crash' '$work/earlier.yaml'"

# replay runs a command in a worker as certify does: each misbehaviour is a FAIL naming its outcome
# on the 2 float8_e5m2_x4 cases, the other 4 pass, nothing unescaped.
for pair in garbage:protocol-error dies-mid-frame:crash hangs:hang wrong-size:wrong-size; do
  mode=${pair%%:*} outcome=${pair#*:}
  timeout 60 "$mx" replay "$corpus" --backend "cmd:$python $hostile $mode" --timeout 0.5 > "$work/replay_$mode.txt" 2>&1
  check "replay $mode: exits 2" test $? -eq 2
  check "replay $mode: 2 cases fail as $outcome" test "$(grep -c "^    $outcome: " "$work/replay_$mode.txt")" -eq 2
  check "replay $mode: the other cases pass" grep -q "^replay: 6 cases x 1 backends: 4 passed, 2 failed, 0 not supported$" "$work/replay_$mode.txt"
  check "replay $mode: no raw escape byte" bash -c "! grep -q $'\x1b' '$work/replay_$mode.txt'"
done

finish command_hostile
