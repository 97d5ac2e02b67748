#!/usr/bin/env bash
# replay and explain run a plug-in in certify's worker (certify/isolated_subject.h): a plug-in that
# crashes or hangs is a failed case named by its outcome (exit 2), never a crash or hang of
# mxconform, and the run goes on with a fresh worker.
# Usage: subject_isolation_test.sh MXCONFORM CORPUS_CASES_DIR CRASH_ON_NAN_PLUGIN HANG_ON_ZERO_BLOCK_PLUGIN CORRECT_PLUGIN
set -u
mx=$1 cases=$2 crash=$3 hang=$4 plugin=$5
source "$(dirname "$0")/cli_checks.sh"

# replay_fails OUTCOME FILE PLUGIN ID SUMMARY AFTER: replay of FILE with a plug-in that fails on case
# ID exits 2 within 30 s, names ID and OUTCOME, ends with SUMMARY, and the case AFTER still passes.
replay_fails() {
  local outcome=$1 file=$2 plugin=$3 id=$4 summary=$5 after=$6 status
  SECONDS=0
  timeout 60 "$mx" replay "$cases/$file" --backend "$plugin" --timeout 2 > "$work/$outcome.txt" 2>&1
  status=$?
  check "replay $file with a plug-in that fails by $outcome exits 2 (not a signal, not killed): $status" test $status -eq 2
  check "and within 30 s ($outcome)" test $SECONDS -lt 30
  check "replay names the case $id" grep -Eq "^FAIL +.*${plugin##*/} +$id " "$work/$outcome.txt"
  check "replay names the outcome $outcome" grep -Eq "^    $outcome: " "$work/$outcome.txt"
  check "the other cases pass ($outcome)" grep -q "^replay: $summary$" "$work/$outcome.txt"
  check "a case after the $outcome passes (a fresh worker)" grep -Eq "^PASS +.*$after " "$work/$outcome.txt"
}
# explain_fails OUTCOME FILE PLUGIN ID: explain exits 2 within 30 s, with the oracle's steps and the failure.
explain_fails() {
  local outcome=$1 file=$2 plugin=$3 id=$4 status
  SECONDS=0
  timeout 60 "$mx" explain --corpus "$cases/$file" --id "$id" --backend "$plugin" --timeout 2 > "$work/explain_$outcome.txt" 2>&1
  status=$?
  check "explain $id with a plug-in that fails by $outcome exits 2: $status" test $status -eq 2
  check "and within 30 s (explain, $outcome)" test $SECONDS -lt 30
  check "explain still explains the block (the oracle's steps)" grep -q "^Step 7" "$work/explain_$outcome.txt"
  check "explain says the subject failed by $outcome on this case" \
    grep -q "^subject .*${plugin##*/} failed on this case: $outcome: " "$work/explain_$outcome.txt"
}

# crash_on_nan: emax_minus_1.yaml has 9 cases; 4 hold a NaN input (inf-block-multiplier-zero,
# nan-block-multiplier-zero, e4m3.inf-block, e5m2.inf-block), the other 5 do not.
replay_fails crash emax_minus_1.yaml "$crash" emax-1.fp4.nan-block-multiplier-zero \
  "9 cases x 1 backends: 5 passed, 4 failed, 0 not supported" emax-1.fp4.largest-finite
check "4 cases crash, each on signal 11" test "$(grep -c '^    crash: .*signal 11' "$work/crash.txt")" -eq 4
explain_fails crash emax_minus_1.yaml "$crash" emax-1.fp4.nan-block-multiplier-zero

# hang_on_zero_block: x4_dtypes.yaml has 6 cases, one of them an all-zero block (x4.e5m2-x4.zero-block).
replay_fails hang x4_dtypes.yaml "$hang" x4.e5m2-x4.zero-block \
  "6 cases x 1 backends: 5 passed, 1 failed, 0 not supported" x4.fp4.two-row-groups
check "the hang names the timeout" grep -q "^    hang: .*no answer within 2" "$work/hang.txt"
explain_fails hang x4_dtypes.yaml "$hang" x4.e5m2-x4.zero-block

# --in-process loads the plug-in into mxconform (for gdb): the same result for a correct plug-in.
"$mx" replay "$cases" --backend "$plugin" > "$work/isolated.txt"
check "replay --backend PLUGIN (isolated) passes" test $? -eq 0
"$mx" replay "$cases" --backend "$plugin" --in-process > "$work/in_process.txt"
check "replay --backend PLUGIN --in-process passes" test $? -eq 0
check "the same report either way" cmp -s "$work/isolated.txt" "$work/in_process.txt"
"$mx" explain --corpus "$cases/x4_dtypes.yaml" --id x4.e5m2-x4.zero-block --backend "$plugin" --in-process > "$work/e1.txt"
check "explain --in-process exits 0" test $? -eq 0
"$mx" explain --corpus "$cases/x4_dtypes.yaml" --id x4.e5m2-x4.zero-block --backend "$plugin" > "$work/e2.txt"
check "explain isolated exits 0, the same explanation" cmp -s "$work/e1.txt" "$work/e2.txt"

# --timeout is checked as certify's.
"$mx" replay "$cases" --backend "$plugin" --timeout 0 > /dev/null 2> "$work/err"
check "replay --timeout 0 exits 1" test $? -eq 1
check "and names the option" grep -q -- "--timeout '0'" "$work/err"

finish subject_isolation
