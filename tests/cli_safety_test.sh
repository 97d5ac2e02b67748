#!/usr/bin/env bash
# The mxconform CLI against hostile and bad input (cli/main.cpp, cli/certify_command.cpp,
# cli/option_values.cpp, src/atomic_file.cpp): exit statuses, one-line errors naming the flag,
# outputs only over regular files and never over an input, and no escape sequence from a corpus
# file reaching the terminal.
# Usage: cli_safety_test.sh MXCONFORM_BINARY EXAMPLE_BF16_NPY CORPUS_DIR EXAMPLE_PLUGIN_SO
set -u
mx=$1
example=$2
corpus=$3
plugin=$4
source "$(dirname "$0")/cli_checks.sh"

# expect_status STATUS PATTERN ARGS...: mxconform ARGS exits with STATUS and, when PATTERN is not
# empty, prints exactly one line on stderr that contains PATTERN.
expect_status() {
  local status=$1 pattern=$2; shift 2
  "$mx" "$@" > "$work/stdout" 2> "$work/stderr"
  local got=$?
  if [[ $got -ne $status ]]; then fail "exit $got, not $status: mxconform $* ($(head -c 300 "$work/stderr"))"; return; fi
  if [[ -n "$pattern" ]]; then
    if [[ $(wc -l < "$work/stderr") -ne 1 ]]; then fail "not one line on stderr: mxconform $*: $(cat "$work/stderr")"; return; fi
    if ! grep -qF -- "$pattern" "$work/stderr"; then fail "stderr lacks '$pattern': mxconform $*: $(cat "$work/stderr")"; return; fi
  fi
  pass
}

q() { echo quantize --input "$example" --in-dtype bfloat16 --out-dtype e4m3; }

# 1. certify validates every option before any work: exit 1 and one line naming the flag.
for value in -1 0 nan inf 1e300 abc "" " 1" 0x10; do
  expect_status 1 "--timeout '$value'" certify --backend scalar --campaign corpus --timeout "$value"
done
for value in "1/-2" "0/1/2" "" "+1/2" " 1/2" "1/0" "2/2" "99999999999999999999/1" "0/1000001" "1/" "/2"; do
  expect_status 1 "--shard '$value'" certify --backend scalar --campaign corpus --shard "$value"
done
GTEST_TOTAL_SHARDS=2 expect_status 1 "GTEST_SHARD_INDEX" certify --backend scalar --campaign corpus
GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=2 expect_status 1 "GTEST_SHARD_INDEX='2'" certify --backend scalar --campaign corpus
GTEST_TOTAL_SHARDS=0 GTEST_SHARD_INDEX=0 expect_status 1 "GTEST_TOTAL_SHARDS='0'" certify --backend scalar --campaign corpus
# --all-knobs runs every declared value of every knob: a knob flag beside it would be ignored.
expect_status 1 "--emax-mode with --all-knobs" certify --backend scalar --all-knobs --emax-mode emax-1
expect_status 1 "--lane-stride with --all-knobs" export --all-knobs --lane-stride 2 --out "$work/never"
# A knob flag is part of the request: a value the profile fixes otherwise is refused, naming both.
expect_status 1 "--emax-mode emax-1: profile ocp-floor fixes it at emax" certify --backend oracle --campaign corpus \
  --profile ocp-floor --emax-mode emax-1
expect_status 1 "--scale-layout physical: profile ocp-floor fixes it at logical" export --campaign corpus \
  --profile ocp-floor --scale-layout physical --out "$work/never"
expect_status 1 "--high-parity 0: profile microxcaling fixes it at 1" verify --profile microxcaling --high-parity 0 \
  --input "$example" --in-dtype bfloat16 --out-dtype fp4 --data "$work/none.npy" --scale "$work/none.npy"
GTEST_TOTAL_SHARDS=-2 GTEST_SHARD_INDEX=1 expect_status 1 "GTEST_TOTAL_SHARDS='-2'" certify --backend scalar --campaign corpus
expect_status 1 "--seed '-1'" certify --backend scalar --seed -1
expect_status 1 "--high-parity '2'" certify --backend scalar --high-parity 2
expect_status 1 "--lane-stride '0x1'" certify --backend scalar --lane-stride 0x1
expect_status 1 "--memory-limit '8X'" certify --backend scalar --memory-limit 8X
expect_status 1 "--memory-limit '99999999999T'" certify --backend scalar --memory-limit 99999999999T
expect_status 1 "--only-corpus" certify --backend scalar --campaign corpus --only-corpus
expect_status 1 "--failure-database and --no-failure-database" certify --backend scalar --failure-database "$work/db" --no-failure-database
expect_status 1 "--failure-database: expected a directory" certify --backend scalar --failure-database ""
# --corpus adds to mxconform's corpus; --only-corpus runs only the files given. The failure
# database goes to $XDG_CACHE_HOME (cli_checks.sh points it into $work), never to the user's cache.
"$mx" certify --backend scalar --campaign corpus --corpus "$corpus/cases/e4m3_rounding.yaml" --only-corpus > "$work/only" 2> /dev/null
check "certify --only-corpus runs only the files given" grep -qE "^CERTIFIED .* [0-9]+ cases run, 0 failed" "$work/only"
only=$(sed -nE 's/.* ([0-9]+) cases run.*/\1/p' "$work/only")
sed 's/id: e4m3\./id: extra.e4m3./' "$corpus/cases/e4m3_rounding.yaml" > "$work/extra.yaml"
"$mx" certify --backend scalar --campaign corpus --corpus "$work/extra.yaml" > "$work/both" 2> /dev/null
both=$(sed -nE 's/.* ([0-9]+) cases run.*/\1/p' "$work/both")
check "certify --corpus adds to mxconform's corpus ($only, then $both cases)" test "${both:-0}" -gt "${only:-0}"
"$mx" certify --backend scalar --campaign corpus --corpus "$corpus/cases/e4m3_rounding.yaml" > "$work/same" 2> /dev/null
check "certify --corpus of a file in mxconform's corpus runs it once" test "$(sed -nE 's/.* ([0-9]+) cases run.*/\1/p' "$work/same")" -eq $((both - only))
check "certify replays the failure database first" grep -qF "failure database $XDG_CACHE_HOME/mxconform/failures/scalar: 0 past failure(s) replayed first, 0 added" "$work/both"
check "certify wrote nothing into the failure database of a certified backend" test ! -e "$XDG_CACHE_HOME/mxconform/failures/scalar"
"$mx" certify --help > "$work/help" 2>&1
check "certify --help documents --memory-limit" grep -q -- "--memory-limit.*Worker address-space limit" "$work/help"

# 2. Parse errors of every command: exit 1 with one line "mxconform <command>: error: ..."; --help and
# --version exit 0.
expect_status 1 "mxconform quantize: error: unknown argument '--bogus'" $(q) --data "$work/d.npy" --scale "$work/s.npy" --bogus
expect_status 1 "mxconform quantize: error: unknown argument '--bogus'" quantize --bogus
expect_status 1 "mxconform quantize: error: --lane-stride" $(q) --data "$work/d.npy" --scale "$work/s.npy" --lane-stride abc
expect_status 1 "mxconform quantize: error: --lane-stride '-1'" $(q) --data "$work/d.npy" --scale "$work/s.npy" --lane-stride -1
expect_status 1 "mxconform quantize: error: --high-parity '01'" $(q) --data "$work/d.npy" --scale "$work/s.npy" --high-parity 01
for value in 0 1025 -1 +2 0x2 " 2" 2x "" 99999999999999999999; do
  expect_status 1 "mxconform quantize: error: --threads '$value': expected a thread count from 1 to 1024" \
    $(q) --data "$work/d.npy" --scale "$work/s.npy" --threads "$value"
done
expect_status 1 "mxconform dequantize: error: unknown argument '--bogus'" dequantize --bogus
expect_status 1 "mxconform certify: error: unknown argument '--bogus'" certify --backend scalar --bogus
expect_status 1 "mxconform certify: error: --backend is required" certify
expect_status 1 "mxconform merge: error: unknown argument '--bogus'" merge --output "$work/m.yaml" "$work/x.yaml" --bogus
expect_status 1 "mxconform merge: error: --output is required" merge "$work/x.yaml"
expect_status 1 "mxconform replay: error: unknown argument '--bogus'" replay "$corpus" --bogus
expect_status 1 "mxconform replay: error: --max-differences '-1'" replay "$corpus" --max-differences -1
expect_status 1 "mxconform explain: error: --high-parity '2'" explain --input "$example" --in-dtype bfloat16 --out-dtype fp4 --high-parity 2 --block 0,0
expect_status 1 "mxconform: error: unknown argument 'nosuch'" nosuch
expect_status 1 "mxconform: error:" 
for command in "" quantize dequantize backends replay explain certify merge; do
  expect_status 0 "" $command --help
done
expect_status 0 "" --version
[[ ! -e "$work/d.npy" && ! -e "$work/s.npy" && ! -e "$work/m.yaml" ]] && pass || fail "a refused command wrote an output"

# 3. Outputs are regular files or absent; --force never replaces anything else.
mkfifo "$work/fifo"
expect_status 1 "$work/fifo: is a FIFO" $(q) --data "$work/fifo" --scale "$work/s.npy" --force
check "the FIFO is still a FIFO" test -p "$work/fifo"
if [[ $(id -u) -eq 0 ]]; then
  mknod "$work/dev" c 1 3
  expect_status 1 "$work/dev: is a character device" $(q) --data "$work/dev" --scale "$work/s.npy" --force
  check "the device node is still a character device" test -c "$work/dev"
else
  echo "skipped: mknod of a character device needs root"
fi
expect_status 1 "/dev/null: is a character device" $(q) --data "$work/d.npy" --scale /dev/null --force
check "/dev/null is still a character device" test -c /dev/null
ln -s /dev/null "$work/link-to-null"
expect_status 1 "$work/link-to-null: is a symbolic link to a character device" $(q) --data "$work/link-to-null" --scale "$work/s.npy" --force
check "the link still points at /dev/null" test -L "$work/link-to-null"
mkdir "$work/dir"
expect_status 1 "$work/dir: is a directory" $(q) --data "$work/dir" --scale "$work/s.npy" --force
expect_status 1 "$work/fifo: is a FIFO" dequantize --data "$example" --scale "$example" --out-dtype e4m3 --output "$work/fifo" --force
expect_status 1 "$work/fifo: is a FIFO" certify --backend scalar --campaign corpus --report "$work/fifo" --force
[[ ! -e "$work/d.npy" && ! -e "$work/s.npy" ]] && pass || fail "a refused quantize wrote an output"
[[ -z "$(find "$work" -name '.*' -newer "$work/fifo")" ]] && pass || fail "a temporary file was left behind"

# 4. Outputs are never an input, nor each other, checked before any work.
expect_status 1 "named for two outputs" certify --backend scalar --campaign corpus --report "$work/r.yaml" --junit "$work/./r.yaml"
check "certify wrote neither report" test ! -e "$work/r.yaml"
cp "$corpus/cases/fp4_rounding.yaml" "$work/case.yaml"
expect_status 1 "$work/case.yaml: is also an input file" certify --backend scalar --campaign corpus --corpus "$work/case.yaml" --report "$work/case.yaml" --force
check "the corpus file is unchanged" cmp -s "$corpus/cases/fp4_rounding.yaml" "$work/case.yaml"
printf 'not really a library' > "$work/backend.so"
expect_status 1 "$work/backend.so: is also an input file" certify --backend "$work/backend.so" --report "$work/backend.so" --force
check "the backend library is unchanged" grep -q '^not really a library$' "$work/backend.so"
mkdir "$work/cases" && cp "$work/case.yaml" "$work/cases/"
expect_status 1 "is inside the input directory" certify --backend scalar --campaign corpus --corpus "$work/cases" --report "$work/cases/case.yaml" --force
expect_status 1 "is also an input file" $(q) --data "$work/d.npy" --scale "$example" --force
expect_status 1 "named for two outputs" $(q) --data "$work/d.npy" --scale "$work/d.npy"
expect_status 0 "" certify --backend scalar --campaign corpus --shard 0/1 --report "$work/shard.yaml"
cp "$work/shard.yaml" "$work/shard.orig"
expect_status 1 "$work/shard.yaml: is also an input file" merge --output "$work/shard.yaml" "$work/shard.yaml" --force
check "the shard is unchanged" cmp -s "$work/shard.yaml" "$work/shard.orig"
expect_status 1 "named for two outputs" merge --output "$work/all.yaml" --junit "$work/all.yaml" "$work/shard.yaml"
expect_status 0 "" merge --output "$work/all.yaml" --junit "$work/all.xml" "$work/shard.yaml"
check "merge wrote both files" test -s "$work/all.yaml" -a -s "$work/all.xml"

# 5. Verdicts: a negative one exits 2.
sed 's/data: "06 08 10 98 00\*12"/data: "06 08 10 99 00*12"/' "$corpus/cases/fp4_rounding.yaml" > "$work/wrong.yaml"
expect_status 2 "" replay "$work/wrong.yaml" --backend scalar
expect_status 0 "" replay "$work/case.yaml" --backend scalar

# 6. A corpus file's text reaches the terminal escaped: no ESC or BEL byte in any output.
cat > "$work/hostile.yaml" <<'EOF'
schema: 1
cases:
  - id: hostile.why
    why: "before \e]0;pwned\a after"
    source: "source \e[31m red"
    input:
      dtype: bfloat16
      shape: [8, 4]
      fill: 0
      set: {"0,0": 4}
    config: {out-dtype: float4_e2m1fn_x4}
    expect:
      scale: "7F"
      data: "06 00*15"
EOF
"$mx" explain --corpus "$work/hostile.yaml" --id hostile.why > "$work/out" 2>&1
status=$?
check "explain of the hostile case exits 0: $(tail -2 "$work/out")" test $status -eq 0
check "explain prints no ESC byte" test "$(grep -c $'\x1b' "$work/out")" -eq 0
check "explain prints no BEL byte" test "$(grep -c $'\x07' "$work/out")" -eq 0
check "explain shows the OSC sequence escaped" grep -qF 'before \x1B]0;pwned\x07 after' "$work/out"
check "explain shows the source escaped" grep -qF 'source \x1B[31m red' "$work/out"
"$mx" replay "$work/hostile.yaml" > "$work/out" 2>&1
status=$?
check "replay of the hostile case exits 0: $(tail -2 "$work/out")" test $status -eq 0
check "replay prints no ESC byte" test "$(grep -c $'\x1b' "$work/out")" -eq 0
sed 's/id: hostile.why/id: "hostile\\e]0;pwned\\a"/' "$work/hostile.yaml" > "$work/hostile_id.yaml"
for command in "replay $work/hostile_id.yaml" "explain --corpus $work/hostile_id.yaml --id x"; do
  "$mx" $command > "$work/out" 2>&1
  status=$?
  check "$command refuses the id: exit $status" test $status -eq 1
  check "$command prints no ESC byte" test "$(grep -c $'\x1b' "$work/out")" -eq 0
  check "$command shows the id escaped" grep -qF "'hostile\x1B]0;pwned\x07'" "$work/out"
done
mkdir "$work/named"
cp "$work/wrong.yaml" "$work/named/bad"$'\x1b'"]0;x"$'\x07'".yaml"
"$mx" replay "$work/named" --backend scalar > "$work/out" 2>&1
status=$?
check "replay of a failing case exits 2" test $status -eq 2
check "replay prints no ESC byte from a file name" test "$(grep -c $'\x1b' "$work/out")" -eq 0
check "replay shows the file name escaped" grep -qF 'bad\x1B]0;x\x07.yaml' "$work/out"

# 7. A plug-in's path is the user's text too: every command that names the subject escapes it.
hostile_plugin="$work/lib"$'\x1b'"]0;T"$'\x07\x1b'"[31mred.so"
cp "$plugin" "$hostile_plugin"
for command in "quantize" "replay" "explain"; do
  case $command in
    quantize) "$mx" quantize --input "$example" --in-dtype bfloat16 --out-dtype e4m3 --data "$work/hp.d.npy" \
                --scale "$work/hp.s.npy" --force --backend "$hostile_plugin" > "$work/out" 2>&1 ;;
    replay) "$mx" replay "$work/named" --backend "$hostile_plugin" > "$work/out" 2>&1 ;;
    explain) "$mx" explain --input "$example" --in-dtype bfloat16 --out-dtype e4m3 --block 0,0 \
               --backend "$hostile_plugin" > "$work/out" 2>&1 ;;
  esac
  check "$command with a hostile plug-in path prints no ESC byte" test "$(grep -c $'\x1b' "$work/out")" -eq 0
  check "$command with a hostile plug-in path prints no BEL byte" test "$(grep -c $'\x07' "$work/out")" -eq 0
  check "$command names the plug-in escaped" grep -qF 'lib\x1B]0;T\x07\x1B[31mred.so' "$work/out"
done

finish cli_safety
