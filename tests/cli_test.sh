#!/usr/bin/env bash
# The mxconform CLI end to end: the oracle and every runnable backend write identical files for every
# output dtype and knob, and bad input gets one clear line and exit status 1 with no output.
# Usage: cli_test.sh MXCONFORM_BINARY EXAMPLE_BF16_NPY
set -uo pipefail
mx=$1
example=$2
source "$(dirname "$0")/cli_checks.sh"

# An .npy file with a hand-written header: npy NAME DESCR SHAPE DATA_BYTES [DATA_FILE]
# (the data: the first DATA_BYTES of DATA_FILE, zeros without one)
npy() {
  local header="{'descr': '$2', 'fortran_order': False, 'shape': $3, }"
  while (( (10 + ${#header} + 1) % 64 != 0 )); do header+=" "; done
  { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $(( (${#header} + 1) % 256 )))\\x$(printf %02x $(( (${#header} + 1) / 256 )))";
    printf '%s\n' "$header"; head -c "$4" "${5:-/dev/zero}"; } > "$1"
}

# The same bits read as float16: only the descr differs ('<u2' -> '<f2', same length).
sed 's/<u2/<f2/' "$example" > "$work/example_f16.npy"

# 1. Backends agree for every output dtype and knob: the oracle and every backend this CPU runs.
subjects=$("$mx" backends | awk '$2 == "yes" && $1 != "oracle" { print $1 }')
[[ -n "$subjects" ]] || fail "no backend runs here"
run_both() {  # run_both LABEL ARGS...
  local label=$1; shift
  for backend in oracle $subjects; do
    if ! "$mx" quantize --quiet --backend "$backend" --data "$work/$backend.d.npy" --scale "$work/$backend.s.npy" --force "$@" 2> "$work/err"; then
      fail "$label: $backend exited non-zero: $(cat "$work/err")"; return
    fi
  done
  for backend in $subjects; do
    if cmp -s "$work/oracle.d.npy" "$work/$backend.d.npy" && cmp -s "$work/oracle.s.npy" "$work/$backend.s.npy"; then pass; else fail "$label: oracle and $backend files differ"; fi
  done
}
for layout in physical logical; do
  for mode in emax emax-1; do
    for out in float8_e4m3fn float8_e5m2 float8_e4m3fn_x4 float8_e5m2_x4; do
      for nan in canonical zero; do
        run_both "$out $mode $nan $layout" --input "$example" --in-dtype bfloat16 --out-dtype $out --emax-mode $mode --fp8-nan $nan --scale-layout $layout
      done
      run_both "$out f16 $mode $layout" --input "$work/example_f16.npy" --out-dtype $out --emax-mode $mode --scale-layout $layout
    done
    for stride in 0 1 2 4 8; do
      for parity in 0 1; do
        run_both "fp4 $mode stride $stride parity $parity $layout" --input "$example" --in-dtype bfloat16 --out-dtype float4_e2m1fn_x4 \
          --emax-mode $mode --lane-stride $stride --high-parity $parity --scale-layout $layout
      done
    done
    run_both "fp4 f16 $mode $layout" --input "$work/example_f16.npy" --out-dtype 2 --emax-mode $mode --scale-layout $layout
  done
done

# 2. Output shapes, and the summary.
"$mx" quantize --input "$example" --in-dtype bfloat16 --out-dtype fp4 --data "$work/d4.npy" --scale "$work/s4.npy" 2> "$work/summary"
grep -q "shape': (32, 32)" "$work/d4.npy" && pass || fail "FP4 data is not [32, 32] bytes"
grep -q "shape': (4, 16)" "$work/s4.npy" && pass || fail "scale of P=32 is not [4, 16] (physical)"
for word in "saturated" "flushed to zero" "NaN 1" "Inf 1" "e8m0 range" "emax_mode=emax"; do
  grep -q "$word" "$work/summary" && pass || fail "summary lacks '$word'"
done
"$mx" dequantize --data "$work/d4.npy" --scale "$work/s4.npy" --out-dtype fp4 --output "$work/y.npy" 2> "$work/summary" \
  && grep -q "'<f4'.*(32, 64)" "$work/y.npy" && pass || fail "dequantize did not write float32 [32, 64]"
for word in "mxconform dequantize: backend" "d4.npy  float4_e2m1fn_x4" "s4.npy  e8m0" "y.npy  float32 <f4 [32, 64]" "scale_layout=physical"; do
  grep -qF "$word" "$work/summary" && pass || fail "dequantize summary lacks '$word': $(cat "$work/summary")"
done
"$mx" dequantize --quiet --data "$work/d4.npy" --scale "$work/s4.npy" --out-dtype fp4 --output "$work/y.npy" --force 2> "$work/summary" \
  && [[ ! -s "$work/summary" ]] && pass || fail "dequantize --quiet printed: $(cat "$work/summary")"

# 3. --threads 1, 2, 3 and the default write the oracle's files for a 200 x 520 tensor (25 partition
# groups: cut every 4 groups in the physical layout, at any group in the logical one),
# and the summary names the thread count.
tail -c 4096 "$example" > "$work/example_bits"  # the example's 32 x 64 elements, repeated
for _ in $(seq 51); do cat "$work/example_bits"; done > "$work/repeated_bits"
npy "$work/large.npy" '<u2' '(200, 520)' 208000 "$work/repeated_bits"
for knobs in "--out-dtype e4m3" "--out-dtype fp4 --lane-stride 32 --scale-layout logical" "--out-dtype fp4 --lane-stride 2"; do
  "$mx" quantize --quiet --backend oracle --input "$work/large.npy" --in-dtype bfloat16 $knobs \
    --data "$work/oracle.d.npy" --scale "$work/oracle.s.npy" --force 2> "$work/err" || fail "oracle $knobs: $(cat "$work/err")"
  for threads in 1 2 3 default; do
    threads_flag=(); [[ $threads == default ]] || threads_flag=(--threads "$threads")
    "$mx" quantize --quiet --input "$work/large.npy" --in-dtype bfloat16 $knobs "${threads_flag[@]}" \
      --data "$work/threads.d.npy" --scale "$work/threads.s.npy" --force 2> "$work/err" || fail "--threads $threads $knobs: $(cat "$work/err")"
    if cmp -s "$work/oracle.d.npy" "$work/threads.d.npy" && cmp -s "$work/oracle.s.npy" "$work/threads.s.npy"; then pass
    else fail "--threads $threads $knobs: files differ from the oracle's"; fi
  done
done
"$mx" quantize --input "$work/large.npy" --in-dtype bfloat16 --out-dtype e4m3 --threads 3 --data "$work/threads.d.npy" \
  --scale "$work/threads.s.npy" --force 2> "$work/summary"
grep -q "^  threads    3$" "$work/summary" && pass || fail "summary lacks 'threads    3': $(cat "$work/summary")"
"$mx" quantize --input "$example" --in-dtype bfloat16 --out-dtype e4m3 --threads 2 --data "$work/threads.d.npy" \
  --scale "$work/threads.s.npy" --force 2> "$work/summary"
grep -q "^  threads    1 (the tensor splits into at most 1 piece of whole block rows)$" "$work/summary" && pass \
  || fail "summary of a 4-group tensor on 2 threads: $(cat "$work/summary")"

# 4. Bad input: a clear line naming the file or rule, exit status 1, no output written.
expect_error() {  # expect_error PATTERN ARGS...
  local pattern=$1; shift
  rm -f "$work/out.d.npy" "$work/out.s.npy"
  "$mx" "$@" > "$work/stdout" 2> "$work/err"
  local status=$?
  if [[ $status -ne 1 ]]; then fail "exit $status, not 1: $*"; return; fi
  if ! grep -q -- "$pattern" "$work/err"; then fail "error for '$*' lacks '$pattern': $(cat "$work/err")"; return; fi
  if [[ -e "$work/out.d.npy" || -e "$work/out.s.npy" ]]; then fail "wrote output despite error: $*"; return; fi
  pass
}
q() { echo quantize --data "$work/out.d.npy" --scale "$work/out.s.npy"; }
expect_error "cannot open" $(q) --input "$work/missing.npy" --in-dtype bfloat16 --out-dtype fp4
head -c 1000 "$example" > "$work/truncated.npy"
expect_error "truncated" $(q) --input "$work/truncated.npy" --in-dtype bfloat16 --out-dtype fp4
npy "$work/one_d.npy" '<u2' '(32,)' 64
expect_error "expected a 2-D array" $(q) --input "$work/one_d.npy" --in-dtype bfloat16 --out-dtype fp4
npy "$work/f32.npy" '<f4' '(8, 4)' 128
expect_error "not an input" $(q) --input "$work/f32.npy" --in-dtype bfloat16 --out-dtype fp4
npy "$work/p12.npy" '<u2' '(12, 4)' 96
expect_error "P must be a multiple of 8" $(q) --input "$work/p12.npy" --in-dtype bfloat16 --out-dtype fp4
npy "$work/f6.npy" '<u2' '(8, 6)' 96
expect_error "F must be a multiple of 4" $(q) --input "$work/f6.npy" --in-dtype bfloat16 --out-dtype e4m3
expect_error "(P\*F) % (2\*stride) == 0" $(q) --input "$example" --in-dtype bfloat16 --out-dtype fp4 --lane-stride 3
expect_error "unknown output dtype 'fp6'" $(q) --input "$example" --in-dtype bfloat16 --out-dtype fp6
expect_error "unknown input dtype" $(q) --input "$example" --in-dtype float32 --out-dtype fp4
expect_error "say which with --in-dtype" $(q) --input "$example" --out-dtype fp4
expect_error "but --in-dtype is bfloat16" $(q) --input "$work/example_f16.npy" --in-dtype bfloat16 --out-dtype fp4
expect_error "unknown backend 'gpu'" $(q) --input "$example" --in-dtype bfloat16 --out-dtype fp4 --backend gpu
expect_error "unknown EMAX mode" $(q) --input "$example" --in-dtype bfloat16 --out-dtype fp4 --emax-mode emax-2
expect_error "output directory" quantize --input "$example" --in-dtype bfloat16 --out-dtype fp4 --data "$work/nodir/d.npy" --scale "$work/out.s.npy"
expect_error "is also an input" quantize --input "$example" --in-dtype bfloat16 --out-dtype fp4 --data "$example" --scale "$work/out.s.npy" --force
# An existing output is refused without --force, and left as it was.
echo "precious" > "$work/keep.npy"
expect_error "exists; pass --force" quantize --input "$example" --in-dtype bfloat16 --out-dtype fp4 --data "$work/keep.npy" --scale "$work/out.s.npy"
[[ "$(cat "$work/keep.npy")" == "precious" ]] && pass || fail "an existing file was changed"
npy "$work/bad_scale.npy" '|u1' '(3, 16)' 48
expect_error "does not match data" dequantize --data "$work/d4.npy" --scale "$work/bad_scale.npy" --out-dtype fp4 --output "$work/out.d.npy"

finish cli
