#!/usr/bin/env bash
# replay and explain run a plug-in in certify's worker (certify/isolated_subject.h): a plug-in that
# crashes or hangs is a failed case named by its outcome (exit 2), never a crash or hang of
# mxconform, and the run goes on with a fresh worker. quantize too: there a crash or hang is an
# error (exit 1) naming the outcome, and no output file is written.
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

# quantize: the outputs of a plug-in that crashes or hangs are never written; exit 1 naming it.
python3 - "$work/nan.npy" "$work/zero.npy" <<'EOF'
import struct, sys
def save(path, values):  # <u2 [8, 32] in npy format 1.0
    header = "{'descr': '<u2', 'fortran_order': False, 'shape': (8, 32), }"
    header += " " * (63 - len(header) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<256H", *values))
save(sys.argv[1], [0x7FC0] + [0x3F80] * 255)
save(sys.argv[2], [0] * 256)
EOF
for outcome in crash hang; do
  if [[ $outcome == crash ]]; then failing=$crash input=$work/nan.npy; else failing=$hang input=$work/zero.npy; fi
  SECONDS=0
  timeout 60 "$mx" quantize --backend "$failing" --timeout 2 --input "$input" --in-dtype bfloat16 --out-dtype e4m3 \
    --data "$work/q_$outcome.d.npy" --scale "$work/q_$outcome.s.npy" > "$work/q_$outcome.txt" 2>&1
  status=$?
  check "quantize with a plug-in that fails by $outcome exits 1 (not a signal): $status" test $status -eq 1
  check "and within 30 s (quantize, $outcome)" test $SECONDS -lt 30
  check "quantize names the outcome $outcome" grep -q "^mxconform quantize: error: $outcome: " "$work/q_$outcome.txt"
  check "no data file written ($outcome)" test ! -e "$work/q_$outcome.d.npy"
  check "no scale file written ($outcome)" test ! -e "$work/q_$outcome.s.npy"
done
"$mx" quantize --backend "$plugin" --input "$work/nan.npy" --in-dtype bfloat16 --out-dtype fp4 --quiet \
  --data "$work/q.d.npy" --scale "$work/q.s.npy"
check "quantize with a correct plug-in (isolated) exits 0" test $? -eq 0
"$mx" quantize --backend "$plugin" --in-process --input "$work/nan.npy" --in-dtype bfloat16 --out-dtype fp4 --quiet \
  --data "$work/q2.d.npy" --scale "$work/q2.s.npy"
check "quantize --in-process exits 0" test $? -eq 0
check "the same data either way" cmp -s "$work/q.d.npy" "$work/q2.d.npy"
check "the same scales either way" cmp -s "$work/q.s.npy" "$work/q2.s.npy"

# --timeout is checked as certify's.
"$mx" replay "$cases" --backend "$plugin" --timeout 0 > /dev/null 2> "$work/err"
check "replay --timeout 0 exits 1" test $? -eq 1
check "and names the option" grep -q -- "--timeout '0'" "$work/err"

finish subject_isolation
