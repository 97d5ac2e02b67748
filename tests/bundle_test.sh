#!/usr/bin/env bash
# Offline bundles and verify end to end (docs/bundle-manifest.md): export, a Python runner
# (examples/python/run_bundle.py) with a subject that calls `mxconform quantize --backend oracle`,
# then grade certifies; a flipped output byte, a deleted output, hostile outputs and a tampered
# manifest are each reported as themselves; a bundle of another profile graded against that
# profile; fingerprint's deciding cases as a bundle, read back by fingerprint --bundle. Expected
# bytes come from the oracle only.
# Usage: bundle_test.sh MXCONFORM_BINARY PYTHON3 SOURCE_DIR
set -uo pipefail
mx=$1
python=$2
source_dir=$3
source "$(dirname "$0")/cli_checks.sh"
if ! "$python" -c 'import numpy, yaml' 2> /dev/null; then
  echo "bundle_test: $python lacks numpy or yaml (python3-numpy, python3-yaml); skipped"
  exit 77
fi
runner=$source_dir/examples/python/run_bundle.py
subject=$source_dir/tests/bundle_oracle_subject.py
export MXCONFORM=$mx

# expect_status STATUS LABEL COMMAND...: the command exits with STATUS; its stdout+stderr in $work/out.
expect_status() {
  local want=$1 label=$2; shift 2
  "$@" > "$work/out" 2>&1
  local got=$?
  if [[ $got -eq $want ]]; then pass; else fail "$label: exit $got, expected $want: $(head -c 600 "$work/out")"; fi
}
expect_output() {  # expect_output LABEL PATTERN: $work/out matches the extended regex
  if grep -Eq -- "$2" "$work/out"; then pass; else fail "$1: no /$2/ in: $(head -c 600 "$work/out")"; fi
}
# The campaigns with small inputs keep the test short; the exhaustive one is the same code path.
export_args=(export --level gate --seed 7 --campaign corpus --campaign properties)

# 1. Export: a manifest, one input per case, an empty outputs/; a non-empty directory refused.
expect_status 0 "export" "$mx" "${export_args[@]}" --out "$work/b"
check "manifest written" test -s "$work/b/manifest.yaml"
cases=$(grep -c '^- id: c' "$work/b/manifest.yaml")
check "one input per case ($cases)" test "$(ls "$work/b/inputs" | wc -l)" -eq "$cases"
check "at least 200 cases" test "$cases" -ge 200
# This export's outputs directory, outputs/<export_id>: new and empty.
ob=$(sed -n 's/^export_id: \([0-9a-f]\{32\}\)$/\1/p' "$work/b/manifest.yaml")
check "an export id in the manifest" test -n "$ob"
check "no expected bytes in the bundle" test -z "$(ls -A "$work/b/outputs/$ob")"
check "... only this export's outputs directory" test "$(ls -A "$work/b/outputs")" = "$ob"
expect_status 1 "export into a non-empty directory" "$mx" "${export_args[@]}" --out "$work/b"
expect_output "non-empty refusal" "not empty"
expect_status 1 "export with an unknown campaign" "$mx" export --campaign everything --out "$work/c"
expect_output "unknown campaign named" "everything"

# 2. Graded before any runner: every case missing, a verdict (exit 2), no crash.
expect_status 2 "grade with no outputs" "$mx" grade "$work/b"
expect_output "missing outputs counted" "NOT CERTIFIED.* $cases cases run, $cases failed"
expect_output "missing output named" "missing-output in corpus case c000000"

cp -a "$work/b" "$work/numpy"  # still without outputs, for the NumPy runner below

# 3. The runner with the oracle subject, then grade: certified, with report and JUnit.
expect_status 0 "run_bundle.py" "$python" "$runner" "$work/b" "$subject"
expect_status 1 "run_bundle.py refuses to replace outputs" "$python" "$runner" "$work/b" "$subject" --only c000000
expect_status 0 "grade" "$mx" grade "$work/b" --report "$work/grade.yaml" --junit "$work/grade.xml"
expect_output "certified" "^CERTIFIED .* $cases cases run, 0 failed"
check "report names the manifest digest" grep -Eq "^manifest_sha256: [0-9a-f]{64}$" "$work/grade.yaml"
check "report names the outputs digest" grep -Eq "^outputs_sha256: [0-9a-f]{64}$" "$work/grade.yaml"
check "report names the bundle" grep -q "^bundle: " "$work/grade.yaml"
check "JUnit written" grep -q "<testsuites" "$work/grade.xml"
# outputs_sha256 is the digest of sha256sum's lines for every output, in manifest order.
listed=$(cd "$work/b" && grep -Eo 'outputs/[0-9a-f]{32}/c[0-9]+\.(data|scale)\.npy' manifest.yaml | xargs sha256sum | sha256sum | cut -d' ' -f1)
check "outputs_sha256 reproducible with sha256sum" grep -q "^outputs_sha256: $listed$" "$work/grade.yaml"

# 3b. The runner with the NumPy implementation of the contract (examples/python/mx_numpy.py),
# another language end to end: export, run in Python, grade.
expect_status 0 "run_bundle.py with mx_numpy" "$python" "$runner" "$work/numpy" "$source_dir/examples/python/mx_numpy.py"
expect_status 0 "grade the NumPy outputs" "$mx" grade "$work/numpy"
expect_output "NumPy outputs certified" "^CERTIFIED .* $cases cases run, 0 failed"

# 4. One byte of one output flipped: that case fails, named, with a repro that replays.
cp -a "$work/b" "$work/flip"
victim=$(awk '/^- id: /{id=$3} /campaign: properties/{print id; exit}' "$work/flip/manifest.yaml")
"$python" - "$work/flip/outputs/$ob/$victim.data.npy" <<'EOF'
import sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
data[-1] ^= 0x01
open(path, "wb").write(bytes(data))
EOF
expect_status 2 "grade a flipped byte" "$mx" grade "$work/flip" --emit-repro "$work/repros"
expect_output "the flipped case named" "wrong-result in properties case $victim \(case-[0-9]+\): data byte [0-9]+: expected 0x"
expect_output "one failure" "NOT CERTIFIED.* 1 failed"
expect_output "the repro shown" "schema: 1|cases:"
repro=$(ls "$work/repros"/*.yaml 2> /dev/null | head -1)
check "repro file written" test -n "$repro"
[[ -n "$repro" ]] && expect_status 0 "the repro replays against the oracle" "$mx" replay "$repro" --backend oracle

# 5. An output deleted: missing-output for that case only.
cp -a "$work/b" "$work/del"
rm "$work/del/outputs/$ob/c000003.scale.npy"
expect_status 2 "grade a deleted output" "$mx" grade "$work/del"
expect_output "deleted output named" "missing-output in corpus case c000003 .*outputs/$ob/c000003.scale.npy: missing"
expect_output "only that case" "NOT CERTIFIED.* 1 failed"

# 6. Hostile outputs: per-case failures, nothing read outside the bundle.
cp -a "$work/b" "$work/bad"
ln -sf /etc/passwd "$work/bad/outputs/$ob/c000001.data.npy"
"$python" -c "import numpy as np; np.save('$work/bad/outputs/$ob/c000002.data.npy', np.load('$work/b/outputs/$ob/c000002.data.npy').astype('<u2'))"
"$python" -c "import numpy as np; np.save('$work/bad/outputs/$ob/c000004.scale.npy', np.zeros((3, 5), dtype='u1'))"
# A header claiming a huge shape over a few bytes.
printf '\x93NUMPY\x01\x00\x76\x00%-117s\n' "{'descr': '|u1', 'fortran_order': False, 'shape': (4611686018427387904, 4611686018427387904), }" \
  > "$work/bad/outputs/$ob/c000005.data.npy"
head -c 1000000 /dev/zero >> "$work/bad/outputs/$ob/c000006.data.npy"
expect_status 2 "grade hostile outputs" "$mx" grade "$work/bad"
expect_output "symlink refused" "malformed-output in corpus case c000001 .*symbolic link"
expect_output "wrong dtype" "malformed-output in corpus case c000002 .*dtype <u2"
expect_output "wrong shape" "malformed-output in corpus case c000004 .*shape \(3, 5\)"
expect_output "huge shape" "malformed-output in corpus case c000005"
expect_output "oversized file" "malformed-output in corpus case c000006 .*bytes, more than"
expect_output "five failures" "NOT CERTIFIED.* 5 failed"
cp -a "$work/b" "$work/linked"
rm -rf "$work/linked/outputs" && ln -s "$work/b/outputs" "$work/linked/outputs"
expect_status 1 "outputs directory a symbolic link" "$mx" grade "$work/linked"
expect_output "outputs link named" "outputs: not a directory inside the bundle"
cp -a "$work/b" "$work/linked-export"
rm -rf "$work/linked-export/outputs/$ob" && ln -s "$work/b/outputs/$ob" "$work/linked-export/outputs/$ob"
expect_status 1 "the export's outputs directory a symbolic link" "$mx" grade "$work/linked-export"
expect_output "export's outputs link named" "outputs/$ob: not a directory inside the bundle"

# A byte written in a scale row no slot names (the oracle leaves those rows 0; named rows hold E8M0 >= 1).
cp -a "$work/b" "$work/unnamed"
written=$("$python" - "$work/unnamed" <<'EOF'
import glob, os, sys
import numpy as np
for path in sorted(glob.glob(os.path.join(sys.argv[1], "outputs", "*", "*.scale.npy"))):
    scale = np.load(path)
    empty = [row for row in range(scale.shape[0]) if not scale[row].any()]
    if empty and any(scale[row].all() for row in range(scale.shape[0])):
        scale[empty[0], 0] = 0x7F
        np.save(path, scale)
        print(os.path.basename(path).split(".")[0])
        break
EOF
)
check "a case with unnamed scale rows" test -n "$written"
expect_status 2 "grade an unnamed scale row written" "$mx" grade "$work/unnamed"
expect_output "unnamed row case named" "write-unnamed-scale-row in [a-z]+ case $written .*no slot names it"

# 7. Tampered manifests refused, each naming the field.
tamper() {  # tamper NAME SED_EXPRESSION: a copy of the bundle with the manifest edited
  rm -rf "$work/$1"; cp -a "$work/b" "$work/$1"; sed -i -e "$2" "$work/$1/manifest.yaml"
}
tamper seed 's/^seed: 7$/seed: 8/'
expect_status 1 "edited seed" "$mx" grade "$work/seed"
expect_output "edited seed named" "seed 8"
tamper version 's/^mxconform_version: .*/mxconform_version: 0.0.1/'
expect_status 1 "edited version" "$mx" grade "$work/version"
expect_output "version named" "field 'mxconform_version' is '0.0.1'"
tamper corpus 's/^corpus_sha256: .*/corpus_sha256: 0000/'
expect_status 1 "edited corpus digest" "$mx" grade "$work/corpus"
expect_output "corpus named" "field 'corpus_sha256'"
tamper format 's/^format_version: 1$/format_version: 2/'
expect_status 1 "another format version" "$mx" grade "$work/format"
expect_output "format version named" "field 'format_version' is 2; this mxconform reads 1"
tamper escape "s#^  data: outputs/$ob/c000000.data.npy#  data: ../../etc/passwd#"
expect_status 1 "a path outside the bundle" "$mx" grade "$work/escape"
expect_output "escaping path named" "case c000000: field 'data'"
tamper shape '0,/^  shape: \[8, 4\]/s//  shape: [8, 8]/'
expect_status 1 "edited shape" "$mx" grade "$work/shape"
expect_output "edited shape named" "field 'shape'"
tamper garbage '3s/.*/format: [unclosed/'
expect_status 1 "malformed YAML" "$mx" grade "$work/garbage"
expect_output "malformed YAML named" "manifest.yaml"
# A key given twice (yaml-cpp would keep both and read one): refused, naming the field and line.
tamper twice 's/^seed: 7$/seed: 7\nseed: 8/'
expect_status 1 "a top-level key given twice" "$mx" grade "$work/twice"
expect_output "the repeated key named" "manifest.yaml:[0-9]+: field 'seed' is given twice"
tamper twice-in-case '0,/^  shape: \[8, 4\]/s//  shape: [8, 4]\n  shape: [8, 4]/'
expect_status 1 "a case's key given twice" "$mx" grade "$work/twice-in-case"
expect_output "the repeated case key named" "field 'cases\\[[0-9]+\\]\\.shape' is given twice"
# A trailing line of bytes that are no UTF-8 text, or a terminal escape: refused, naming the byte.
tamper binary ''
printf '\xff\xfe\n' >> "$work/binary/manifest.yaml"
expect_status 1 "a trailing line that is not UTF-8" "$mx" grade "$work/binary"
expect_output "the byte named" "manifest.yaml:[0-9]+: byte 0xFF is a control character or not UTF-8"
tamper escape-line ''
printf '# \033[31mred\n' >> "$work/escape-line/manifest.yaml"
expect_status 1 "a trailing comment with an escape" "$mx" grade "$work/escape-line"
expect_output "the escape byte named" "byte 0x1B is a control character"
if grep -q $'\033' "$work/out"; then fail "the escape reached the output"; else pass; fi
tamper dropped '/^- id: c000001$/,/^  scale: /d'
expect_status 1 "a case dropped" "$mx" grade "$work/dropped"
rm "$work/dropped/manifest.yaml"
expect_status 1 "no manifest" "$mx" grade "$work/dropped"
expect_output "missing manifest named" "manifest.yaml: missing"
cp "$work/b/inputs/c000010.npy" "$work/input-copy.npy"
tamper input ''
cp "$work/b/inputs/c000011.npy" "$work/input/inputs/c000010.npy"
expect_status 1 "an input replaced" "$mx" grade "$work/input"
expect_output "replaced input named" "inputs/c000010.npy: not the input of case c000010"

# 7a. export --force into a bundle whose runner already wrote outputs (b, graded CERTIFIED above):
# the new export's outputs directory is its own, so the earlier outputs are never graded as its
# answers; an export id that is not one is refused, naming the field.
cp -a "$work/b" "$work/again"
expect_status 0 "export --force into a graded bundle" "$mx" "${export_args[@]}" --out "$work/again" --force
check "a new export id" bash -c "! grep -q '^export_id: $ob$' '$work/again/manifest.yaml'"
expect_status 2 "grade the new export before any runner" "$mx" grade "$work/again"
expect_output "every case missing, none graded from the earlier outputs" "NOT CERTIFIED.* $cases cases run, $cases failed"
tamper exportid 's/^export_id: .*/export_id: ..\/..\/etc/'
expect_status 1 "an export id edited into a path" "$mx" grade "$work/exportid"
expect_output "export id named" "field 'export_id' is '../../etc'"
# The id is part of cases_sha256: a manifest edited back to the earlier export's id (whose outputs
# are all there) no longer matches its cases; one without the field is refused, naming it.
rm -rf "$work/backdated"; cp -a "$work/again" "$work/backdated"
sed -i -e "s/^export_id: .*/export_id: $ob/" "$work/backdated/manifest.yaml"
sed -i -e "s#outputs/[0-9a-f]\{32\}/#outputs/$ob/#" "$work/backdated/manifest.yaml"
expect_status 1 "an export id edited back to the earlier export's" "$mx" grade "$work/backdated"
expect_output "the digest named" "field 'cases_sha256'"
tamper noexportid '/^export_id: /d'
expect_status 1 "no export id" "$mx" grade "$work/noexportid"
expect_output "the missing export id named" "export_id"

# 7b. A bundle of another profile: its corpus cases and its profile campaign, graded against it.
expect_status 0 "export --profile ocp-floor" "$mx" "${export_args[@]}" --profile ocp-floor --out "$work/ocp"
check "the manifest's knobs name the profile" grep -q "^  profile: ocp-floor$" "$work/ocp/manifest.yaml"
check "... and its block shape" grep -q "^  block_shape: 1x32$" "$work/ocp/manifest.yaml"
ocp_cases=$(grep -c '^- id: c' "$work/ocp/manifest.yaml")
check "every entry is an ocp-floor 1x32 case ($ocp_cases)" \
  test "$(grep -c '^  profile: ocp-floor$' "$work/ocp/manifest.yaml")" -eq $((ocp_cases + 1))
check "no neuron case exported" bash -c "! grep -q '^  profile: neuron' '$work/ocp/manifest.yaml'"
cp -a "$work/ocp" "$work/ocp-fault"
expect_status 0 "run_bundle.py with mx_numpy, ocp-floor" "$python" "$runner" "$work/ocp" "$source_dir/examples/python/mx_numpy.py"
expect_status 0 "grade the ocp-floor outputs" "$mx" grade "$work/ocp" --report "$work/ocp.yaml"
expect_output "ocp-floor outputs certified" "^CERTIFIED .* $ocp_cases cases run, 0 failed"
expect_output "graded as ocp-floor" "profile=ocp-floor block=1x32"
check "the report names the profile" grep -q "^profile: ocp-floor$" "$work/ocp.yaml"
# The runner only passes the profile on: a quantizer that rounds ties away is caught by ocp-floor's ties.
MXC_PLANTED_FAULT=ties-away "$python" "$runner" "$work/ocp-fault" "$source_dir/examples/python/mx_numpy.py" > /dev/null 2>&1
expect_status 2 "grade ocp-floor outputs with ties away" "$mx" grade "$work/ocp-fault"
expect_output "... a wrong result" "wrong-result in (corpus|properties) case"
# The oracle subject through `mxconform quantize --profile --block-shape`, on a few cases.
cp -a "$work/ocp" "$work/ocp-oracle"
oo=$(sed -n 's/^export_id: \([0-9a-f]\{32\}\)$/\1/p' "$work/ocp/manifest.yaml")
rm "$work/ocp-oracle/outputs/$oo/"*
expect_status 0 "run_bundle.py with the oracle subject, ocp-floor, 3 cases" "$python" "$runner" "$work/ocp-oracle" "$subject" \
  --only c000000 c000001 c000002
"$python" -c "
import numpy as np, sys
for stem in ('c000000', 'c000001', 'c000002'):
    for part in ('data', 'scale'):
        a = np.load('$work/ocp/outputs/$oo/%s.%s.npy' % (stem, part)); b = np.load('$work/ocp-oracle/outputs/$oo/%s.%s.npy' % (stem, part))
        assert a.shape == b.shape and (a == b).all(), stem + ' ' + part
" > "$work/out" 2>&1
check "the NumPy ocp-floor bytes are the oracle's (3 cases)" test $? -eq 0
# Bad profile fields in a manifest: refused, naming the file, the field and the rule.
rm -rf "$work/ocp-bad" && cp -a "$work/ocp" "$work/ocp-bad"
sed -i -e 's/^  profile: ocp-floor$/  profile: ocp-ceiling/' "$work/ocp-bad/manifest.yaml"
expect_status 1 "a manifest with an unknown profile" "$mx" grade "$work/ocp-bad"
expect_output "unknown profile named" "manifest.yaml:[0-9]+: knobs: field 'profile' is 'ocp-ceiling', not a profile"
rm -rf "$work/ocp-bad" && cp -a "$work/ocp" "$work/ocp-bad"
sed -i -e 's/^  block_shape: 1x32$/  block_shape: 8x4/' "$work/ocp-bad/manifest.yaml"
expect_status 1 "a block shape the profile does not admit" "$mx" grade "$work/ocp-bad"
expect_output "block shape rule named" "knobs: block_shape 8x4 is not one profile ocp-floor admits"
rm -rf "$work/ocp-bad" && cp -a "$work/ocp" "$work/ocp-bad"
"$python" - "$work/ocp-bad/manifest.yaml" <<'EOF'
import sys
path = sys.argv[1]
text = open(path).read()
head, cases = text.split("\ncases:\n", 1)  # the first entry's profile, not the header's
open(path, "w").write(head + "\ncases:\n" + cases.replace("  profile: ocp-floor", "  profile: torchao-ceil", 1))
EOF
expect_status 1 "an entry's profile edited" "$mx" grade "$work/ocp-bad"
expect_output "entry's profile named" "case c000000: field 'profile' is 'torchao-ceil'"
expect_status 1 "export of the exhaustive campaign alone for ocp-floor" "$mx" export --profile ocp-floor --campaign exhaustive \
  --out "$work/none"
expect_output "... neuron-only, said" "--campaign exhaustive: the exhaustive element campaign is neuron-only"
check "... no bundle written" test ! -e "$work/none"
expect_status 0 "export of the corpus and exhaustive campaigns for ocp-floor" "$mx" export --profile ocp-floor \
  --campaign corpus --campaign exhaustive --out "$work/ocp-skip"
expect_output "... the exhaustive one skipped, said" "^skipped: exhaustive: the exhaustive element campaign is neuron-only"
expect_status 1 "export with an unknown profile" "$mx" export --profile ocp-ceiling --out "$work/none"
expect_output "unknown profile listed" "--profile: unknown profile 'ocp-ceiling'; expected one of neuron"
expect_status 1 "export with a block shape the profile does not admit" "$mx" export --block-shape 1x32 --out "$work/none"
expect_output "admitted shapes listed" "--block-shape 1x32: profile neuron admits 8x4"

# 7b'. A knob named on export: only the corpus cases of that knob's value, as certify runs them;
# grade regenerates the same cases from the manifest's named_knobs.
expect_status 0 "export --emax-mode emax-1 --campaign corpus" "$mx" export --campaign corpus --emax-mode emax-1 --out "$work/named"
check "the manifest lists the knob named" grep -q "^named_knobs: \[emax_mode\]$" "$work/named/manifest.yaml"
named_cases=$(grep -c '^- id: c' "$work/named/manifest.yaml")
check "some corpus cases at emax-1 ($named_cases)" test "$named_cases" -gt 0
check "every entry at emax-1" test "$(grep -c '^  emax_mode: emax-1$' "$work/named/manifest.yaml")" -eq $((named_cases + 1))
expect_status 2 "grade regenerates the same cases" "$mx" grade "$work/named"
expect_output "... every one missing" "NOT CERTIFIED.* $named_cases cases run, $named_cases failed"
# A bundle of the corpus campaign alone promises no coverage class: a correct runner certifies it.
expect_status 0 "run_bundle.py on the corpus-only bundle" "$python" "$runner" "$work/named" "$subject"
expect_status 0 "a corpus-only bundle of a correct subject is CERTIFIED" "$mx" grade "$work/named"
expect_output "... with no coverage class missed" "^CERTIFIED"

# 7c. fingerprint offline: the deciding cases as a bundle, the device's outputs read back.
expect_status 0 "fingerprint --export-bundle" "$mx" fingerprint --export-bundle "$work/fp"
check "a fingerprint bundle of 12 cases" test "$(grep -c '^- id: c' "$work/fp/manifest.yaml")" -eq 12
check "... campaign fingerprint" grep -q "^campaigns: \[fingerprint\]$" "$work/fp/manifest.yaml"
cp -a "$work/fp" "$work/fp-fault"
expect_status 2 "fingerprint --bundle before any runner" "$mx" fingerprint --bundle "$work/fp"
expect_output "every case not run" "not run \(missing-output"
expect_status 0 "run_bundle.py on the fingerprint bundle" "$python" "$runner" "$work/fp" "$source_dir/examples/python/mx_numpy.py"
expect_status 0 "fingerprint --bundle" "$mx" fingerprint --bundle "$work/fp"
expect_output "the NumPy example named neuron" "^matches every case: neuron emax_mode=emax fp8_nan=canonical lane_stride=0 high_parity=1$"
expect_output "the bundle named" "^fingerprint of bundle:"
MXC_PLANTED_FAULT=ties-away "$python" "$runner" "$work/fp-fault" "$source_dir/examples/python/mx_numpy.py" > /dev/null 2>&1
expect_status 2 "fingerprint --bundle of ties away under neuron" "$mx" fingerprint --bundle "$work/fp-fault"
expect_output "ties read as away" "element ties: nearest, ties away from zero"
expect_status 0 "fingerprint --export-bundle --profile microxcaling" "$mx" fingerprint --export-bundle "$work/fpm" --profile microxcaling
check "... the calls are microxcaling" grep -q "^  profile: microxcaling$" "$work/fpm/manifest.yaml"
expect_status 0 "run_bundle.py on it" "$python" "$runner" "$work/fpm" "$source_dir/examples/python/mx_numpy.py"
expect_status 0 "fingerprint --bundle (microxcaling)" "$mx" fingerprint --bundle "$work/fpm"
expect_output "named microxcaling" "^matches every case: microxcaling$"
expect_status 0 "grade grades a fingerprint bundle against its profile" "$mx" grade "$work/fpm"
expect_status 1 "fingerprint --bundle of a certify bundle" "$mx" fingerprint --bundle "$work/ocp"
expect_output "the other campaign named" "a bundle of the corpus campaign; fingerprint --bundle reads"
expect_status 1 "fingerprint with two sources" "$mx" fingerprint --backend oracle --bundle "$work/fp"
expect_output "one source asked for" "exactly one of --backend, --export-bundle DIR and --bundle DIR"

# 8. verify: one tensor against the reference.
in=$source_dir/examples/data/example_bf16.npy
"$mx" quantize --backend oracle --quiet --input "$in" --in-dtype bfloat16 --out-dtype fp4 --lane-stride 2 \
  --data "$work/v.d.npy" --scale "$work/v.s.npy"
expect_status 0 "verify identical" "$mx" verify --input "$in" --in-dtype bfloat16 --out-dtype fp4 --lane-stride 2 \
  --data "$work/v.d.npy" --scale "$work/v.s.npy"
expect_output "identical said" "^IDENTICAL"
cp "$work/v.d.npy" "$work/v2.d.npy"
"$python" - "$work/v2.d.npy" <<'EOF'
import sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
data[-1] ^= 0x10
data[-3] ^= 0x01
open(path, "wb").write(bytes(data))
EOF
expect_status 2 "verify different" "$mx" verify --input "$in" --in-dtype bfloat16 --out-dtype fp4 --lane-stride 2 \
  --data "$work/v2.d.npy" --scale "$work/v.s.npy" --repro "$work/v.repro.yaml"
expect_output "differences grouped by block" "^DIFFERENT: [12] of [0-9]+ blocks differ \(0 scale bytes, 2 data bytes\)"
expect_output "block listed" "block \(group [0-9]+, column [0-9]+\)"
check "verify repro written" test -s "$work/v.repro.yaml"
expect_status 0 "verify repro replays against the oracle" "$mx" replay "$work/v.repro.yaml" --backend oracle
expect_status 1 "verify repro not overwritten" "$mx" verify --input "$in" --in-dtype bfloat16 --out-dtype fp4 \
  --lane-stride 2 --data "$work/v2.d.npy" --scale "$work/v.s.npy" --repro "$work/v.repro.yaml"
# 128 partitions: 16 groups, whose physical scale buffer has rows no slot names.
"$python" -c "import numpy as np; np.save('$work/tall.npy', np.random.default_rng(1).integers(0x3000, 0x4800, (128, 4)).astype('<u2'))"
"$mx" quantize --backend oracle --quiet --input "$work/tall.npy" --in-dtype bfloat16 --out-dtype e4m3 \
  --data "$work/e.d.npy" --scale "$work/e.s.npy"
"$python" -c "
import numpy as np
s = np.load('$work/e.s.npy')
unnamed = [row for row in range(s.shape[0]) if not s[row].any()]  # named rows hold E8M0 >= 1 here
assert unnamed, 'no unnamed scale row'
s[unnamed[0], 0] = 0x7f; np.save('$work/e2.s.npy', s)"
expect_status 0 "verify the tall tensor" "$mx" verify --input "$work/tall.npy" --in-dtype bfloat16 --out-dtype e4m3 \
  --data "$work/e.d.npy" --scale "$work/e.s.npy"
expect_status 2 "verify an unnamed scale row written" "$mx" verify --input "$work/tall.npy" --in-dtype bfloat16 --out-dtype e4m3 \
  --data "$work/e.d.npy" --scale "$work/e2.s.npy"
expect_output "unnamed row named" "no slot names it"
expect_status 1 "verify the wrong shape" "$mx" verify --input "$work/tall.npy" --in-dtype bfloat16 --out-dtype e4m3 \
  --data "$work/v.d.npy" --scale "$work/e.s.npy"
expect_output "wrong shape named" "v.d.npy: shape"
# A profile with 1x32 blocks (ocp-floor): scale tensor [P, F/32], a block is 32 columns of one row.
"$python" -c "import numpy as np; np.save('$work/wide.npy', np.random.default_rng(2).integers(0x3000, 0x4800, (3, 64)).astype('<u2'))"
"$mx" quantize --backend oracle --profile ocp-floor --quiet --input "$work/wide.npy" --in-dtype bfloat16 --out-dtype e4m3 \
  --data "$work/w.d.npy" --scale "$work/w.s.npy"
expect_status 0 "verify an ocp-floor tensor" "$mx" verify --profile ocp-floor --input "$work/wide.npy" --in-dtype bfloat16 \
  --out-dtype e4m3 --data "$work/w.d.npy" --scale "$work/w.s.npy"
expect_status 1 "verify a 3-row tensor with neuron's 8x4 blocks" "$mx" verify --input "$work/wide.npy" \
  --in-dtype bfloat16 --out-dtype e4m3 --data "$work/w.d.npy" --scale "$work/w.s.npy"
expect_output "the block rule named" "P must be a multiple of 8"
"$python" -c "
import numpy as np
d = np.load('$work/w.d.npy'); d[2, 63] ^= 1; np.save('$work/w2.d.npy', d)"
expect_status 2 "verify an ocp-floor byte flipped" "$mx" verify --profile ocp-floor --input "$work/wide.npy" --in-dtype bfloat16 \
  --out-dtype e4m3 --data "$work/w2.d.npy" --scale "$work/w.s.npy" --repro "$work/w.repro.yaml"
expect_output "the 1x32 block named" "block \(group 2, column 1\) rows 2-2, columns 32-63"
expect_status 0 "the 1x32 repro replays against the oracle" "$mx" replay "$work/w.repro.yaml" --backend oracle
check "the 1x32 repro is one block" grep -Eq "^ *shape: \[1, 32\]" "$work/w.repro.yaml"
# 32x1 FP4 (microxcaling): a byte's two nibbles lie in two blocks; the high nibble of data byte
# 1500 of a [64, 64] tensor (32 bytes a row: row 46, byte 28) is element (46, 57), block (1, 57).
# Its repro is the [32, 4] window (FP4 needs F % 4 == 0).
"$python" -c "import numpy as np; np.save('$work/col.npy', np.random.default_rng(3).integers(0x3000, 0x4800, (64, 64)).astype('<u2'))"
"$mx" quantize --backend oracle --profile microxcaling --block-shape 32x1 --quiet --input "$work/col.npy" \
  --in-dtype bfloat16 --out-dtype fp4 --data "$work/c.d.npy" --scale "$work/c.s.npy"
"$python" -c "
import numpy as np
d = np.load('$work/c.d.npy'); d.reshape(-1)[1500] ^= 0x10; np.save('$work/c2.d.npy', d)"
expect_status 2 "verify a 32x1 FP4 high nibble flipped" "$mx" verify --profile microxcaling --block-shape 32x1 \
  --input "$work/col.npy" --in-dtype bfloat16 --out-dtype fp4 --data "$work/c2.d.npy" --scale "$work/c.s.npy" \
  --repro "$work/c.repro.yaml"
expect_output "the high nibble's block named" "block \(group 1, column 57\) rows 32-63, columns 57-57"
expect_status 0 "the 32x1 FP4 repro replays against the oracle" "$mx" replay "$work/c.repro.yaml" --backend oracle
check "the 32x1 FP4 repro is the [32, 4] window" grep -Eq "^ *shape: \[32, 4\]" "$work/c.repro.yaml"
# Bytes the profile leaves unspecified (docs/contract.md, "NaN and Inf in a block"): an ocp-floor
# FP4 row whose first block holds a NaN, written as torchao does on x86 (0x33 under scale 0xFF),
# verifies; a wrong code in its second block (all ones: scale 127 - 2 = 125, 0x7D, and 1 * 2^2 = 4,
# code 6, bytes 0x66) does not.
"$python" -c "
import numpy as np
x = np.full((1, 64), 0x3F80, '<u2'); x[0, 0] = 0x7FC0; np.save('$work/nanrow.npy', x)
d = np.array([[0x33] * 16 + [0x66] * 16], np.uint8); np.save('$work/nanrow.d.npy', d)
np.save('$work/nanrow.s.npy', np.array([[0xFF, 0x7D]], np.uint8))
d[0, 20] = 0x67; np.save('$work/nanrow2.d.npy', d)"
expect_status 0 "verify takes any FP4 code under a NaN scale" "$mx" verify --profile ocp-floor --input "$work/nanrow.npy" \
  --in-dtype bfloat16 --out-dtype fp4 --data "$work/nanrow.d.npy" --scale "$work/nanrow.s.npy"
expect_status 2 "verify still grades the block beside it" "$mx" verify --profile ocp-floor --input "$work/nanrow.npy" \
  --in-dtype bfloat16 --out-dtype fp4 --data "$work/nanrow2.d.npy" --scale "$work/nanrow.s.npy"

finish bundle_test
