#!/usr/bin/env bash
# replay and explain run a plug-in in certify's worker (certify/isolated_subject.h): a plug-in that
# crashes or hangs is a failed case named by its outcome (exit 2), never a crash or hang of
# mxconform, and the run goes on with a fresh worker.
# Usage: subject_isolation_test.sh MXCONFORM CORPUS_CASES_DIR CRASH_ON_NAN_PLUGIN HANG_ON_ZERO_BLOCK_PLUGIN CORRECT_PLUGIN
set -u
mx=$1 cases=$2 crash=$3 hang=$4 plugin=$5
source "$(dirname "$0")/cli_checks.sh"

# crash_on_nan: emax_minus_1.yaml has 9 cases; 4 hold a NaN input (inf-block-multiplier-zero,
# nan-block-multiplier-zero, e4m3.inf-block, e5m2.inf-block), the other 5 do not.
SECONDS=0
timeout 60 "$mx" replay "$cases/emax_minus_1.yaml" --backend "$crash" --timeout 2 > "$work/crash.txt" 2>&1
status=$?
check "replay --backend CRASH_ON_NAN exits 2 (not a signal): $status" test $status -eq 2
check "and within 30 s" test $SECONDS -lt 30
check "replay names the crashed case" grep -Eq "^FAIL +.*libcrash_on_nan.so +emax-1.fp4.nan-block-multiplier-zero " "$work/crash.txt"
check "replay names the outcome crash and the signal" grep -Eq "^    crash: .*signal 11" "$work/crash.txt"
check "4 cases crash" test "$(grep -c '^    crash: ' "$work/crash.txt")" -eq 4
check "the cases without NaN still pass (a fresh worker after each crash)" \
  grep -q "^replay: 9 cases x 1 backends: 5 passed, 4 failed, 0 not supported$" "$work/crash.txt"
check "a case after a crash passes" grep -Eq "^PASS +.*emax-1.fp4.largest-finite " "$work/crash.txt"

timeout 60 "$mx" explain --corpus "$cases/emax_minus_1.yaml" --id emax-1.fp4.nan-block-multiplier-zero --backend "$crash" \
  --timeout 2 > "$work/explain_crash.txt" 2>&1
status=$?
check "explain --backend CRASH_ON_NAN exits 2 (not a signal): $status" test $status -eq 2
check "explain still explains the block (the oracle's steps)" grep -q "^Step 7" "$work/explain_crash.txt"
check "explain says the subject crashed on this case" \
  grep -q "^subject .*libcrash_on_nan.so failed on this case: crash: " "$work/explain_crash.txt"

# hang_on_zero_block: x4_dtypes.yaml has 6 cases, one of them an all-zero block (x4.e5m2-x4.zero-block).
SECONDS=0
timeout 60 "$mx" replay "$cases/x4_dtypes.yaml" --backend "$hang" --timeout 2 > "$work/hang.txt" 2>&1
status=$?
check "replay --backend HANG_ON_ZERO_BLOCK exits 2 (not killed by timeout): $status" test $status -eq 2
check "and within 30 s" test $SECONDS -lt 30
check "replay names the hung case" grep -Eq "^FAIL +.*libhang_on_zero_block.so +x4.e5m2-x4.zero-block " "$work/hang.txt"
check "replay names the outcome hang" grep -q "^    hang: .*no answer within 2" "$work/hang.txt"
check "the other cases pass" grep -q "^replay: 6 cases x 1 backends: 5 passed, 1 failed, 0 not supported$" "$work/hang.txt"
check "the case after the hang passes" grep -Eq "^PASS +.*x4.fp4.two-row-groups " "$work/hang.txt"

SECONDS=0
timeout 60 "$mx" explain --corpus "$cases/x4_dtypes.yaml" --id x4.e5m2-x4.zero-block --backend "$hang" --timeout 2 \
  > "$work/explain_hang.txt" 2>&1
status=$?
check "explain --backend HANG_ON_ZERO_BLOCK exits 2: $status" test $status -eq 2
check "and within 30 s" test $SECONDS -lt 30
check "explain says the subject hung on this case" \
  grep -q "^subject .*libhang_on_zero_block.so failed on this case: hang: " "$work/explain_hang.txt"

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
