# Sourced by the CLI test scripts (cli_test.sh, corpus_cli_test.sh, cli_safety_test.sh): a scratch
# directory $work removed on exit (certify's failure database under it), counted checks, and the closing line "NAME: N passed, M failed"
# with the script's exit status (finish NAME, last).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# certify's failure database goes into the scratch directory, never into the user's cache.
export XDG_CACHE_HOME="$work/cache"
failures=0
passes=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { passes=$((passes + 1)); }
check() {  # check LABEL COMMAND...: the command must succeed
  local label=$1; shift
  if "$@"; then pass; else fail "$label"; fi
}
finish() {
  echo "$1: $passes passed, $failures failed"
  [[ $failures -eq 0 ]]
}
