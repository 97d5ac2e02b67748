#!/usr/bin/env bash
# A command subject (`--backend 'cmd:...'`, registry/command_subject.cpp) is a subject like any
# other: every command that takes --backend takes one. The subject is the NumPy example
# (examples/python/mx_numpy.py); with MXC_PLANTED_FAULT=ties-away it rounds ties away from zero.
# Usage: command_subject_test.sh MXCONFORM PYTHON3 SOURCE_DIR EXAMPLE_BF16_NPY PLUGIN
set -u
mx=$1 python=$2 src=$3 example=$4 plugin=$5
source "$(dirname "$0")/cli_checks.sh"
subject="cmd:$python $src/examples/python/mx_numpy.py"

# quantize: the command's bytes are the oracle's, for each output dtype and a remapped FP4.
for dtype in fp4 e4m3 e5m2 e4m3_x4 e5m2_x4; do
  "$mx" quantize --input "$example" --in-dtype bfloat16 --out-dtype $dtype --backend oracle --quiet \
    --data "$work/oracle_$dtype.data.npy" --scale "$work/oracle_$dtype.scale.npy"
  "$mx" quantize --input "$example" --in-dtype bfloat16 --out-dtype $dtype --backend "$subject" --quiet \
    --data "$work/cmd_$dtype.data.npy" --scale "$work/cmd_$dtype.scale.npy"
  check "quantize --backend CMD writes the oracle's data ($dtype)" cmp -s "$work/oracle_$dtype.data.npy" "$work/cmd_$dtype.data.npy"
  check "quantize --backend CMD writes the oracle's scales ($dtype)" cmp -s "$work/oracle_$dtype.scale.npy" "$work/cmd_$dtype.scale.npy"
done
"$mx" quantize --input "$example" --in-dtype bfloat16 --out-dtype fp4 --lane-stride 8 --high-parity 0 --scale-layout logical \
  --backend oracle --quiet --data "$work/o.npy" --scale "$work/os.npy"
"$mx" quantize --input "$example" --in-dtype bfloat16 --out-dtype fp4 --lane-stride 8 --high-parity 0 --scale-layout logical \
  --backend "$subject" --quiet --data "$work/c.npy" --scale "$work/cs.npy"
check "quantize --backend CMD with a lane stride, parity 0 and the logical layout" cmp -s "$work/o.npy" "$work/c.npy"
check "... and its scales" cmp -s "$work/os.npy" "$work/cs.npy"

# One request at a time: --threads does not split a command's work, and says so.
"$mx" quantize --input "$example" --in-dtype bfloat16 --out-dtype e4m3 --backend "$subject" --threads 4 \
  --data "$work/t.npy" --scale "$work/ts.npy" 2> "$work/summary"
check "quantize --backend CMD --threads 4 runs on one thread" grep -q "^  threads    1 (a command subject runs on one thread)$" "$work/summary"

# replay: every corpus case passes; the planted fault fails (exit 2).
"$mx" replay "$src/corpus" --backend "$subject" > "$work/replay.txt"
check "replay --backend CMD passes every case" test $? -eq 0
MXC_PLANTED_FAULT=ties-away "$mx" replay "$src/corpus" --backend "$subject" > "$work/replay_wrong.txt"
check "replay --backend CMD with the planted fault exits 2" test $? -eq 2

# explain: the subject's column, with the tie it rounds away.
MXC_PLANTED_FAULT=ties-away "$mx" explain --corpus "$src/corpus" --id e4m3.tie.normal-binade --backend "$subject" > "$work/explain.txt"
check "explain --backend CMD exits 0" test $? -eq 0
check "explain shows the subject's wrong code 0x39 beside the expected 0x38" grep -Eq "0x38.*0x39|38 .*39" "$work/explain.txt"

# fingerprint: the command's contract named from its own answers; the planted fault matches none.
"$mx" fingerprint --backend "$subject" > "$work/fingerprint.txt" 2>&1
check "fingerprint --backend CMD exits 0 (exactly one configuration)" test $? -eq 0
check "fingerprint names neuron with the default knobs" grep -q "^matches every case: neuron emax_mode=emax fp8_nan=canonical lane_stride=0 high_parity=1" "$work/fingerprint.txt"
MXC_PLANTED_FAULT=ties-away "$mx" fingerprint --backend "$subject" > "$work/fingerprint_wrong.txt" 2>&1
check "fingerprint of the planted fault exits 2" test $? -eq 2
check "... names the tie it rounds away" grep -q "element ties: nearest, ties away from zero — case fp8.tie.1.0625" "$work/fingerprint_wrong.txt"
check "... and says no known profile" grep -q "^no known profile matches every case" "$work/fingerprint_wrong.txt"

# bench: the command's rows.
"$mx" bench --backend "$subject" --benchmark_filter='256KiB' --benchmark_min_time=0.01 --benchmark_format=json \
  > "$work/bench.json" 2> "$work/bench.err"
check "bench --backend CMD exits 0" test $? -eq 0
check "bench reports rows for the command" grep -q "mx_numpy.py.*256KiB" "$work/bench.json"

# serve: any subject over the protocol; a plug-in served is certified like the plug-in.
"$mx" certify --backend "cmd:$mx serve --backend $plugin" --campaign corpus --report "$work/serve.yaml" > "$work/serve.txt" 2>&1
check "certify --backend 'cmd:mxconform serve --backend PLUGIN' exits 0" test $? -eq 0
check "... CERTIFIED" grep -q "^CERTIFIED" "$work/serve.txt"

# serve refuses a stream that is not frames, and ends quietly with its input.
printf 'not a frame at all' | "$mx" serve --backend oracle > "$work/serve_out" 2> "$work/serve_err"
check "serve on garbage exits 1" test $? -eq 1
check "... saying it is not a frame" grep -q "not a frame" "$work/serve_err"
check "... writing nothing to stdout" test ! -s "$work/serve_out"
"$mx" serve --backend oracle < /dev/null > "$work/serve_out"
check "serve with no input exits 0" test $? -eq 0

# Bad commands: one line naming the rule, exit 1.
"$mx" quantize --input "$example" --in-dtype bfloat16 --out-dtype fp4 --backend "cmd:$work/no-such-program" \
  --data "$work/n.npy" --scale "$work/ns.npy" 2> "$work/err"
check "a command that does not exist exits 1" test $? -eq 1
check "... naming it" grep -q "no-such-program" "$work/err"
"$mx" quantize --input "$example" --in-dtype bfloat16 --out-dtype fp4 --backend "cmd:$python -c 'unterminated" \
  --data "$work/n.npy" --scale "$work/ns.npy" 2> "$work/err"
check "an unterminated quote exits 1" test $? -eq 1
check "... and says so" grep -q "unterminated" "$work/err"
"$mx" quantize --input "$example" --in-dtype bfloat16 --out-dtype fp4 --backend "cmd:$python -c 'import sys; sys.stdout.write(chr(27)+\"[2J\")'" \
  --data "$work/n.npy" --scale "$work/ns.npy" 2> "$work/err"
check "a command that writes garbage at the handshake exits 1" test $? -eq 1
check "... and its bytes reach the terminal escaped" bash -c "! grep -q $'\x1b' '$work/err'"
check "... no output file is left" test ! -e "$work/n.npy"

finish command_subject
