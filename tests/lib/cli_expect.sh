# Shared by the CLI test scripts (sourced, after `set -u`): one prologue and one `expect`.
#   cli_expect_init "$@"         bin=$1 (the topotune binary), tmp (a temp dir removed at exit),
#                                fails=0
#   cli_prefix=(simulate)        optional: words put before every expect's arguments
#   cli_timeout=20               optional: seconds each expect may run (default 60)
#   expect CODE NEEDLE ARGS...   runs "$bin" "${cli_prefix[@]}" ARGS; counts a failure unless it
#                                exits CODE and its stdout+stderr contain NEEDLE (fixed string)
#   cli_expect_finish NAME       prints "NAME: ok" or the failure count, exits 0 or 1
cli_prefix=()
cli_timeout=60

cli_expect_init() {
  bin=$1
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  fails=0
}

expect() {  # expect CODE NEEDLE ARGS...
  local code=$1 needle=$2
  shift 2
  out=$(timeout "$cli_timeout" "$bin" "${cli_prefix[@]}" "$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$code" ] || ! grep -qF -- "$needle" <<<"$out"; then
    echo "FAIL: topotune ${cli_prefix[*]} $* -> rc=$rc (want $code, '$needle'), output:"
    echo "$out" | head -20
    fails=$((fails + 1))
  fi
}

cli_expect_finish() {
  if [ "$fails" -ne 0 ]; then
    echo "$1: $fails failure(s)"
    exit 1
  fi
  echo "$1: ok"
  exit 0
}
