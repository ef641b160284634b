#!/usr/bin/env bash
# End to end: no command runs through
# --plot paths or names in data files, output flags never replace devices or follow links,
# multi-file emits are all or nothing, failed writes to stdout are errors, nothing is printed
# before a check that fails, and no input aborts with an uncaught exception.
# Usage: output_safety_cli_test.sh path/to/topotune
set -u
bin=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
failed() { echo "FAIL: $*"; fails=$((fails + 1)); }
# run CMD...: sets rc, out (stdout), err (stderr).
run() {
  "$bin" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  rc=$?
  out=$(cat "$tmp/stdout")
  err=$(cat "$tmp/stderr")
}
# expect CODE NEEDLE CMD...: exit status CODE, NEEDLE on stderr, nothing on stdout when CODE != 0.
expect() {
  local code=$1 needle=$2
  shift 2
  run "$@"
  if [ "$rc" -ne "$code" ] || ! grep -qF -- "$needle" <<<"$err"; then
    failed "topotune $* -> rc=$rc (want $code, '$needle' on stderr): $err"
  elif [ "$code" -ne 0 ] && [ -n "$out" ]; then
    failed "topotune $* failed (rc=$rc) but printed on stdout: $(head -3 <<<"$out")"
  fi
}
have_gnuplot() { command -v gnuplot >/dev/null; }

cat >"$tmp/a100.log" <<'LOG'
# nThread 1 nGpus 8 minBytes 1 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 validation: 0
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
        8192          2048     float     sum      -1    35.91    0.23    0.40    N/A    36.07    0.23    0.40    N/A
     1048576        262144     float     sum      -1    74.78   14.02   24.54    N/A    76.17   13.77   24.09    N/A
    67108864      16777216     float     sum      -1    584.5  114.81  200.91    N/A    581.9  115.33  201.82    N/A
# Avg bus bandwidth    : 115.0
LOG
# A cluster file whose inline instance name is the issue's gnuplot payload (title injection)
# and a DOT payload (a quote that closes the label and adds a node).
cluster_file() {  # cluster_file NAME_JSON_STRING OUT
  cat >"$2" <<JSON
{"schema": "topotune.cluster/1", "nodes": 1,
 "instance": {"schema": "topotune.instance/1", "name": $1, "vendor": "custom",
  "gpu": {"count": {"value": 8, "source": "t"}, "model": {"value": "A100", "source": "t"},
          "arch": {"value": "ampere", "source": "t"}},
  "intra": {"fabric": {"value": "pcie", "source": "t"}},
  "host": {"cpu_sockets": {"value": 1, "source": "t"},
           "pcie_switches": {"value": [{"socket": 0, "gpus": [0, 1, 2, 3, 4, 5, 6, 7], "nics": [0]}],
                             "source": "t"}},
  "network": {"nics": {"value": 1, "source": "t"}, "nic_Gbps": {"value": 100, "source": "t"},
              "transport": {"value": "infiniband", "source": "t"},
              "gpudirect_rdma": {"value": true, "source": "t"}}}}
JSON
}

# --- 1. No command execution -------------------------------------------------------------
mkdir "$tmp/w"
cd "$tmp/w" || exit 1
plot="x';touch PWNED;'\$(touch PWNED2).svg"
run validate --nccl-tests "$tmp/a100.log" --instance dgx-a100 --plot "$plot"
if have_gnuplot; then
  [ "$rc" -eq 0 ] || failed "validate --plot with quotes in the path: rc=$rc $err"
  grep -q '<svg' "$plot" 2>/dev/null || failed "no SVG written under the quoted name"
else
  [ "$rc" -ne 0 ] && grep -qF 'gnuplot' <<<"$err" || failed "no gnuplot: rc=$rc $err"
fi
# A name built to break out of gnuplot's title or the DOT label is refused where it enters
# (core/name_check.h), before anything is drawn; the exit side quotes names as well.
cluster_file "\"evil'\\nsystem 'touch PWNED3'\\n!touch PWNED4\\nset title 'x\"" "$tmp/evil.json"
run validate --nccl-tests "$tmp/a100.log" --cluster "$tmp/evil.json" --plot "$tmp/w/o.svg"
[ "$rc" -eq 2 ] && grep -qF "instance name" <<<"$err" ||
  failed "validate --cluster evil.json --plot: rc=$rc $err"
[ -e "$tmp/w/o.svg" ] && failed "a plot was written for a refused cluster"
ls -A "$tmp/w" | grep -qx "PWNED[0-9]*" && failed "a command ran: $(ls -A "$tmp/w")"
ls -A "$tmp/w" | grep -q '\.tmp\.' && failed "temporary files left: $(ls -A "$tmp/w")"
cd "$tmp" || exit 1
cluster_file '"x\"]; injected [shape=box]; injected -- \"h0/gpu0\"; a [label=\"\\\\"' "$tmp/dot.json"
run topo --cluster "$tmp/dot.json" --format dot
[ "$rc" -eq 2 ] && grep -qF "instance name" <<<"$err" ||
  failed "topo --format dot with a quote in the name: rc=$rc $err"
[ -z "$out" ] || failed "topo printed DOT for a refused cluster"

# --- 2. Output files: no device replaced, no link followed ------------------------------
sim=(simulate --instance p4d.24xlarge --nodes 1 --algo ring --size 1M)
for dev in /dev/null /dev/full; do
  expect 2 "it is a character device" "${sim[@]}" --trace "$dev"
  [ -c "$dev" ] || failed "$dev is no longer a character device"
done
expect 2 "symbolic link" "${sim[@]}" --trace /dev/stdout
echo precious >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/t.json"
expect 2 "symbolic link" "${sim[@]}" --trace "$tmp/t.json"
[ "$(cat "$tmp/victim")" = precious ] || failed "--trace followed a planted symlink"
[ -L "$tmp/t.json" ] || failed "the planted symlink was replaced"
expect 2 "it is a directory" "${sim[@]}" --trace "$tmp"
expect 2 "No such file or directory" "${sim[@]}" --trace "$tmp/missing/t.json"
run "${sim[@]}" --trace "$tmp/good.json"
[ "$rc" -eq 0 ] && python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/good.json" ||
  failed "simulate --trace to a fresh file: rc=$rc $err"
# Checked before the work and before the report (calibrate -o, validate --plot).
cal=(calibrate --nccl-tests "$tmp/a100.log" --instance dgx-a100 --params nvlink_efficiency --rounds 5)
expect 2 "-o: cannot write '/dev/null': it is a character device" "${cal[@]}" -o /dev/null
[ -c /dev/null ] || failed "calibrate -o replaced /dev/null"
expect 2 "symbolic link" "${cal[@]}" -o "$tmp/t.json"
expect 2 "No such file or directory" validate --nccl-tests "$tmp/a100.log" --instance dgx-a100 \
  --plot "$tmp/missing/p.svg"
grep -q "gnuplot" <<<"$err" && failed "a missing directory is blamed on gnuplot: $err"
ln -s "$tmp/victim" "$tmp/l.svg"
expect 2 "symbolic link" validate --nccl-tests "$tmp/a100.log" --instance dgx-a100 --plot "$tmp/l.svg"
expect 2 "--plot needs a .svg or .png" validate --nccl-tests "$tmp/a100.log" --instance dgx-a100 \
  --plot /dev/null
# A full disk (simulated by the file size limit, 2 KiB): the error is reported, the old file
# stays whole, no temp file is left (before the safe writer: exit 0 and a truncated SVG).
for c in "validate --nccl-tests $tmp/a100.log --instance dgx-a100 --plot $tmp/full/p.svg" \
  "${sim[*]} --trace $tmp/full/p.svg"; do
  mkdir -p "$tmp/full"
  echo old >"$tmp/full/p.svg"
  # shellcheck disable=SC2086
  (ulimit -f 2 && "$bin" $c >/dev/null 2>"$tmp/stderr")
  rc=$?
  if { ! have_gnuplot && [[ $c == validate* ]]; }; then continue; fi
  [ "$rc" -eq 2 ] && grep -qF "File too large" "$tmp/stderr" ||
    failed "topotune $c past the size limit -> rc=$rc: $(cat "$tmp/stderr")"
  [ "$(cat "$tmp/full/p.svg")" = old ] || failed "topotune $c: the old file was not kept"
  [ "$(ls -A "$tmp/full")" = p.svg ] || failed "topotune $c left: $(ls -A "$tmp/full")"
done
# plan --emit all: one target refused -> every earlier file unchanged (all or nothing).
mkdir "$tmp/cfg"
plan=(plan --instance p4d.24xlarge --emit all --out "$tmp/cfg")
run "${plan[@]}" --nodes 2
[ "$rc" -eq 0 ] || failed "plan --emit all: rc=$rc $err"
files=$(ls "$tmp/cfg" | sort)
[ "$(wc -l <<<"$files")" -ge 2 ] || failed "plan --emit all wrote fewer than 2 files: $files"
last=$(tail -1 <<<"$files")
for blocker in symlink directory; do
  rm -rf "${tmp:?}/cfg/$last"
  if [ $blocker = symlink ]; then ln -s "$tmp/victim" "$tmp/cfg/$last"; else mkdir "$tmp/cfg/$last"; fi
  (cd "$tmp/cfg" && md5sum $(grep -vxF "$last" <<<"$files")) >"$tmp/before.md5"
  expect 2 "$last" "${plan[@]}" --nodes 8
  (cd "$tmp/cfg" && md5sum -c --quiet "$tmp/before.md5") || failed "plan --emit replaced files ($blocker)"
  [ "$(ls -A "$tmp/cfg" | sort)" = "$files" ] || failed "plan --emit left files: $(ls -A "$tmp/cfg")"
done
[ "$(cat "$tmp/victim")" = precious ] || failed "plan --emit followed a symlink"
expect 2 "is not a directory" plan --instance p4d.24xlarge --nodes 2 --emit all --out /dev/null

# --- 5. Exit codes: stdout failures are errors; nothing printed before a failing check ----
commands=("instances" "topo --instance p4d.24xlarge --nodes 2" "${sim[*]}"
  "schedule --algo ring --ranks 4 --size 1M --format table"
  "predict --instance p4d.24xlarge --nodes 2 --sizes 1M"
  "validate --nccl-tests $tmp/a100.log --instance dgx-a100" "${cal[*]} -o $tmp/cal.json"
  "plan --instance p4d.24xlarge --nodes 2" "emulate status --prefix zq" "--help")
for c in "${commands[@]}"; do
  # shellcheck disable=SC2086
  "$bin" $c >/dev/full 2>"$tmp/stderr"
  rc=$?
  [ "$rc" -eq 1 ] && grep -qF "cannot write to standard output: No space left on device" "$tmp/stderr" ||
    failed "topotune $c >/dev/full -> rc=$rc: $(cat "$tmp/stderr")"
  # shellcheck disable=SC2086
  "$bin" $c >&- 2>"$tmp/stderr"
  rc=$?
  [ "$rc" -eq 1 ] && grep -qF "cannot write to standard output: Bad file descriptor" "$tmp/stderr" ||
    failed "topotune $c >&- -> rc=$rc: $(cat "$tmp/stderr")"
  # shellcheck disable=SC2086
  python3 - "$bin" $c <<'PY' || failed "topotune $c into a closed pipe"
import os, subprocess, sys
r, w = os.pipe()
os.close(r)  # the reader is gone before the first write: EPIPE, deterministically
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
err = p.stderr.decode()
if p.returncode != 1 or "cannot write to standard output: Broken pipe" not in err:
    sys.exit(f"rc={p.returncode}: {err}")
PY
done
expect 2 "no NCCL algorithm/protocol is enabled" predict --instance p4d.24xlarge --nodes 1 --sizes 1M --nccl-algo nvls

# --- 3. No uncaught exception: every failure is `topotune: error:` with exit 1 or 2 -------
no_abort() {  # no_abort CMD...: exit 1 or 2 with a topotune error, never a crash
  run "$@"
  if { [ "$rc" -ne 1 ] && [ "$rc" -ne 2 ]; } || ! grep -q '^topotune: error: ' <<<"$err" ||
    grep -q 'terminate called' <<<"$err"; then
    failed "topotune $* -> rc=$rc: $(head -3 <<<"$err")"
  fi
}
echo '{"schema": 5}' >"$tmp/cal5.json"
echo 'null' >"$tmp/null.json"
no_abort predict --instance p4d.24xlarge --nodes 2 --sizes 1M --calibration "$tmp/cal5.json"
no_abort predict --instance p4d.24xlarge --nodes 2 --sizes 1M --calibration "$tmp/null.json"
no_abort simulate --instance p4d.24xlarge --nodes 2 --algo ring --size 1M --calibration "$tmp/null.json"
no_abort calibrate --nccl-tests "$tmp/a100.log" --instance dgx-a100 --params nvlink_efficiency \
  --rounds 2 -o "$tmp/u.json" --description "$(printf 'bad \xff utf-8')"
no_abort schedule --algo ring --ranks 2147483647 --size 1M
if ! ldd "$bin" 2>/dev/null | grep -q 'libasan'; then  # ASan cannot run under ulimit -v
  (ulimit -v 2000000 && "$bin" schedule --algo ring --ranks 32768 --size 1M \
    >/dev/null 2>"$tmp/stderr")
  rc=$?
  { [ "$rc" -eq 1 ] || [ "$rc" -eq 2 ]; } && grep -q '^topotune: error: ' "$tmp/stderr" ||
    failed "schedule --ranks 32768 in 2 GB -> rc=$rc: $(head -3 "$tmp/stderr")"
fi

if [ "$fails" -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "output safety CLI: all passed"
