#!/usr/bin/env bash
# `mxconform replay` and `mxconform explain` end to end (cli/replay_command.cpp, cli/explain_command.cpp):
# exit statuses (0 all pass, 2 a case failed, 1 an error), one line per case, the differing bytes of a failure, loader errors, and colour only on
# a terminal without NO_COLOR.
# Usage: corpus_cli_test.sh MXCONFORM_BINARY CORPUS_DIR EXAMPLE_BF16_NPY
set -uo pipefail
mx=$1
corpus=$2
example=$3
source "$(dirname "$0")/cli_checks.sh"

# 1. The corpus passes on every backend; one line per case and backend.
"$mx" replay "$corpus" > "$work/out" 2> "$work/err"
status=$?
check "replay corpus exits 0: $(tail -3 "$work/out") $(cat "$work/err")" test $status -eq 0
check "replay prints a summary with no failure" grep -Eq '^replay: [0-9]+ cases x [0-9]+ backends: [0-9]+ passed, 0 failed' "$work/out"
cases=$(grep -c '^PASS' "$work/out")
check "replay prints a PASS line per case and backend ($cases)" test "$cases" -ge 240
check "replay prints no colour into a pipe" bash -c "! grep -q $'\033' '$work/out'"

# 2. A wrong expectation fails with the differing byte, its element, block and E8M0.
mkdir -p "$work/bad"
sed '0,/data: "06 08 10 98 00\*12"/s//data: "06 08 10 99 00*12"/' "$corpus/cases/fp4_rounding.yaml" > "$work/bad/fp4_rounding.yaml"
"$mx" replay "$work/bad" --backend scalar > "$work/out" 2>&1
check "replay of a wrong expectation exits 2" test $? -eq 2
check "the failure names the case" grep -q '^FAIL  *scalar  *fp4.tie.0.25-to-0 ' "$work/out"
check "the failure shows the byte, element, block and E8M0" grep -q \
  'data byte 3: expected 0x99, actual 0x98; low nibble: element 6 (row 1, col 2) code 0x9 -> 0x8, block (0, 0) E8M0 127' "$work/out"
check "the failure counts the differing bytes" grep -q '1 of 16 data bytes and 0 of 1 scale bytes differ; config input=bfloat16' "$work/out"
check "the report says how to explain the failure" grep -q "explain the first failure: mxconform explain --corpus $work/bad/fp4_rounding.yaml --id fp4.tie.0.25-to-0 --backend scalar" "$work/out"

# 3. A bad corpus file gets the loader's error and exit 1; so does an unknown backend.
sed 's/^      data:/      dat:/' "$corpus/cases/x4_dtypes.yaml" > "$work/typo.yaml"
"$mx" replay "$work/typo.yaml" > "$work/out" 2> "$work/err"
check "replay of a bad file exits 1" test $? -eq 1
check "the loader names file, line, column and field" grep -q "^mxconform replay: error: $work/typo.yaml:[0-9]*:7: cases\[0\].expect: unknown key 'dat'" "$work/err"
"$mx" replay "$corpus" --backend nosuch > /dev/null 2> "$work/err"
check "replay with an unknown backend exits 1" test $? -eq 1
check "the error lists the backends" grep -q "unknown backend 'nosuch'; choose oracle, scalar" "$work/err"
"$mx" replay "$work/nothing-here" > /dev/null 2> "$work/err"
check "replay of a missing path exits 1" test $? -eq 1

# 4. explain: a corpus case by id, a block of an .npy input, and errors.
"$mx" explain --corpus "$corpus" --id fp4.tie.2.5-to-2 > "$work/out" 2> "$work/err"
status=$?
check "explain by id exits 0: $(cat "$work/err")" test $status -eq 0
for part in 'Steps 1-2' 'Step 3. E8M0' 'Step 4. Multiplier' 'Steps 4-5' 'tie: to the even code 0x4' 'Step 6. Pack FP4' 'Step 7. Scale layout'; do
  check "explain prints '$part'" grep -qF "$part" "$work/out"
done
"$mx" explain --input "$example" --in-dtype bfloat16 --out-dtype float8_e5m2 --emax-mode emax-1 --block 1,2 > "$work/out" 2> "$work/err"
status=$?
check "explain of an .npy block exits 0: $(cat "$work/err")" test $status -eq 0
check "explain names the block" grep -q 'block (1, 2), rows 8..15, columns 8..11' "$work/out"
check "explain prints the configuration" grep -q 'emax_mode=emax-1 emax_bias=14' "$work/out"
"$mx" explain --corpus "$corpus" --id no.such.case > /dev/null 2> "$work/err"
check "explain of a missing id exits 1" test $? -eq 1
check "explain names the missing id" grep -q "no case with id 'no.such.case'" "$work/err"
"$mx" explain --input "$example" --in-dtype bfloat16 --out-dtype fp4 --block 9,0 > /dev/null 2> "$work/err"
check "explain of a block outside the tensor exits 1" test $? -eq 1
"$mx" explain --corpus "$corpus" --id fp4.tie.2.5-to-2 --out-dtype fp4 > /dev/null 2>&1
check "explain refuses knobs with --corpus" test $? -eq 1

# 5. Colour on a terminal, and never with NO_COLOR.
if command -v script > /dev/null 2>&1; then
  script -qec "'$mx' explain --corpus '$corpus' --id fp4.tie.2.5-to-2" /dev/null > "$work/tty" 2>&1
  check "explain on a terminal is coloured" grep -q $'\033\\[' "$work/tty"
  NO_COLOR=1 script -qec "'$mx' explain --corpus '$corpus' --id fp4.tie.2.5-to-2" /dev/null > "$work/tty" 2>&1
  check "NO_COLOR turns colour off" bash -c "! grep -q $'\033\\\\[' '$work/tty'"
fi

finish corpus_cli
