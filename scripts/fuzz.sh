#!/usr/bin/env bash
# Fuzzes the corpus loader (corpus/fuzz/corpus_loader_fuzz.cpp) for a bounded time: builds it with
# clang, libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer into its own build directory,
# seeds it with every corpus/*.yaml file and runs it.
#
#   scripts/fuzz.sh [SECONDS]     default 60
#
# Environment: MXCONFORM_FUZZ_BUILD_DIR (default build-fuzz/), MXCONFORM_FUZZ_DIR (where the grown
# corpus and any crash reproducers go; default <build dir>/fuzz-run). Exits non-zero when the
# fuzzer finds a crash, a sanitizer report, a timeout (10 s on one input) or an input that needs
# more than 2 GiB; the reproducer is then in <fuzz dir>/artifacts/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
build=${MXCONFORM_FUZZ_BUILD_DIR:-$root/build-fuzz}
work=${MXCONFORM_FUZZ_DIR:-$build/fuzz-run}
[[ "$seconds" =~ ^[0-9]+$ && "$seconds" -gt 0 ]] || { echo "fuzz: SECONDS must be a positive whole number" >&2; exit 2; }

# clang with its libFuzzer runtime (Debian packages clang and libclang-rt-dev).
libfuzzer_links() {
  local probe
  probe=$(mktemp -d)
  printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' > "$probe/probe.cpp"
  clang++ -fsanitize=fuzzer "$probe/probe.cpp" -o "$probe/probe" >/dev/null 2>&1
  local status=$?
  rm -rf "$probe"
  return $status
}
if ! command -v clang++ >/dev/null 2>&1 || ! libfuzzer_links; then
  echo "fuzz: installing clang and libclang-rt-dev (libFuzzer)"
  sudo=
  [[ $(id -u) -eq 0 ]] || sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends clang libclang-rt-dev
  libfuzzer_links || { echo "fuzz: clang++ -fsanitize=fuzzer still does not link" >&2; exit 1; }
fi
"$root/scripts/bootstrap.sh" >/dev/null

# src/cpu_features.cpp asks __builtin_cpu_supports("f16c"), which clang 14 rejects. The fuzz target
# never asks for CPU features, so this build answers "no" to every feature.
sanitize="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
sanitize+=" '-D__builtin_cpu_supports(feature)=false'"

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
if [[ -f "$build/CMakeCache.txt" ]] && ! grep -q '^MXCONFORM_BUILD_FUZZ:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "fuzz: $build is not a fuzz build; set MXCONFORM_FUZZ_BUILD_DIR to another directory" >&2
  exit 1
fi
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_C_FLAGS="$sanitize" -DCMAKE_CXX_FLAGS="$sanitize" \
  -DMXCONFORM_BUILD_FUZZ=ON -DMXCONFORM_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" --target corpus_loader_fuzz --parallel "$(nproc)"

# libFuzzer writes new inputs into the first directory only; the YAML files are read as seeds.
mkdir -p "$work/corpus" "$work/artifacts" "$work/seeds"
find "$root/corpus" -name '*.yaml' -exec cp {} "$work/seeds/" \;
echo "fuzz: corpus_loader_fuzz for ${seconds}s, seeds: $(ls "$work/seeds" | wc -l) corpus files, grown corpus: $work/corpus"
status=0
"$build/corpus/fuzz/corpus_loader_fuzz" "$work/corpus" "$work/seeds" \
  -dict="$root/corpus/fuzz/corpus.dict" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=65536 -artifact_prefix="$work/artifacts/" -print_final_stats=1 2> "$work/fuzz.log" || status=$?
grep -E '^(#[0-9]+ +DONE|Done|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY)' "$work/fuzz.log" || true
if [[ $status -ne 0 ]]; then
  echo "fuzz: FAILED (exit $status); log $work/fuzz.log, reproducer in $work/artifacts/" >&2
  tail -40 "$work/fuzz.log" >&2
  exit 1
fi
echo "fuzz: no crash, leak, timeout or out-of-memory input in ${seconds}s"
