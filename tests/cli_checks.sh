# Sourced by the CLI test scripts (cli_test.sh, corpus_cli_test.sh, cli_safety_test.sh): a scratch
# directory $work removed on exit, counted checks, and the closing line "NAME: N passed, M failed"
# with the script's exit status (finish NAME, last).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
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
