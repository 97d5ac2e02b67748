#!/usr/bin/env bash
# A plug-in backend is a subject like any built-in (registry/open_subject.cpp): every command that takes
# --backend takes a plug-in path. Usage: subject_plugin_test.sh MXCONFORM CORPUS_DIR EXAMPLE_BF16_NPY
#   CORRECT_PLUGIN WRONG_ROUNDING_PLUGIN
set -u
mx=$1 corpus=$2 example=$3 plugin=$4 wrong=$5
source "$(dirname "$0")/cli_checks.sh"

# quantize: the plug-in's bytes are the oracle's, for each output dtype.
for dtype in fp4 e4m3 e5m2 e4m3_x4 e5m2_x4; do
  "$mx" quantize --input "$example" --in-dtype bfloat16 --out-dtype $dtype --backend oracle --quiet \
    --data "$work/oracle_$dtype.data.npy" --scale "$work/oracle_$dtype.scale.npy"
  "$mx" quantize --input "$example" --in-dtype bfloat16 --out-dtype $dtype --backend "$plugin" --quiet \
    --data "$work/plugin_$dtype.data.npy" --scale "$work/plugin_$dtype.scale.npy"
  check "quantize --backend PLUGIN writes the oracle's data ($dtype)" cmp -s "$work/oracle_$dtype.data.npy" "$work/plugin_$dtype.data.npy"
  check "quantize --backend PLUGIN writes the oracle's scales ($dtype)" cmp -s "$work/oracle_$dtype.scale.npy" "$work/plugin_$dtype.scale.npy"
done
"$mx" quantize --input "$example" --in-dtype bfloat16 --out-dtype fp4 --lane-stride 8 --high-parity 0 --backend oracle \
  --quiet --data "$work/o.npy" --scale "$work/os.npy"
"$mx" quantize --input "$example" --in-dtype bfloat16 --out-dtype fp4 --lane-stride 8 --high-parity 0 --backend "$plugin" \
  --quiet --data "$work/p.npy" --scale "$work/ps.npy"
check "quantize --backend PLUGIN with a lane stride and parity 0" cmp -s "$work/o.npy" "$work/p.npy"
# The ABI promises a plug-in one call at a time: --threads does not split its work, and says so.
"$mx" quantize --input "$example" --in-dtype bfloat16 --out-dtype e4m3 --backend "$plugin" --threads 4 \
  --data "$work/t.npy" --scale "$work/ts.npy" 2> "$work/summary"
check "quantize --backend PLUGIN --threads 4 runs on one thread" grep -q "^  threads    1 (a plug-in backend runs on one thread)$" "$work/summary"

# dequantize: the ABI has no dequantize; the error says so and names what does.
"$mx" dequantize --data "$work/oracle_e4m3.data.npy" --scale "$work/oracle_e4m3.scale.npy" --out-dtype e4m3 \
  --backend "$plugin" --output "$work/y.npy" 2> "$work/err"
check "dequantize --backend PLUGIN exits 1" test $? -eq 1
check "and says the ABI only quantizes" grep -q "only quantizes" "$work/err"

# replay: every corpus case passes on the correct plug-in; the wrong one fails (exit 2).
"$mx" replay "$corpus" --backend "$plugin" > "$work/replay.txt"
check "replay --backend PLUGIN passes every case" test $? -eq 0
check "replay names the plug-in" grep -q "libmxconform_example_backend.so" "$work/replay.txt"
"$mx" replay "$corpus" --backend "$wrong" > "$work/replay_wrong.txt"
check "replay --backend WRONG-PLUGIN exits 2" test $? -eq 2

# explain: expected beside actual, with the differing code marked.
"$mx" explain --corpus "$corpus" --id e4m3.tie.normal-binade --backend "$wrong" > "$work/explain.txt"
check "explain --backend PLUGIN exits 0" test $? -eq 0
check "explain shows the subject's column" grep -q "subject" "$work/explain.txt"
check "explain shows the plug-in's wrong code 0x39 beside the expected 0x38" grep -Eq "0x38.*0x39|38 .*39" "$work/explain.txt"

# bench: the plug-in's rows.
"$mx" bench --backend "$plugin" --benchmark_filter='256KiB' --benchmark_min_time=0.01 --benchmark_format=json \
  > "$work/bench.json" 2> "$work/bench.err"
check "bench --backend PLUGIN exits 0" test $? -eq 0
check "bench reports rows for the plug-in" grep -q "libmxconform_example_backend.so.*256KiB" "$work/bench.json"

# A library that is not a backend: one line naming the rule, exit 1.
"$mx" quantize --input "$example" --in-dtype bfloat16 --out-dtype fp4 --backend "$work/nothing.so" \
  --data "$work/n.npy" --scale "$work/ns.npy" 2> "$work/err"
check "a missing plug-in path exits 1" test $? -eq 1
check "and names the path" grep -q "nothing.so" "$work/err"

finish subject_plugin
