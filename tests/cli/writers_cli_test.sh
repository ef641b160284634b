#!/usr/bin/env bash
# End to end, every writer (docs/output-files.md): an empty path flag is refused,
# emulate's --dir "" never means "/", --out creates only its last component and removes it on
# failure, concurrent emits into one directory leave one whole set, a signal during a large
# --trace leaves no temp file, measure --out is checked before MPI starts, emulate's rates and
# ranks are refused with their range, and a failed write to stdout says why.
# Usage: writers_cli_test.sh path/to/topotune
set -u
source "$(dirname "$0")/../lib/cli_expect.sh"
cli_expect_init "$(realpath "$1")"  # bin, tmp (removed at exit), fails
failed() { echo "FAIL: $*"; fails=$((fails + 1)); }
# expect CODE NEEDLE CMD...: exit status CODE, NEEDLE on stderr; a refusal (2) is one line.
# (Stricter than cli_expect.sh's: stderr only, and no internal or MPI noise on a refusal.)
expect() {
  local code=$1 needle=$2
  shift 2
  "$bin" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  rc=$?
  err=$(cat "$tmp/stderr")
  if [ "$rc" -ne "$code" ] || ! grep -qF -- "$needle" <<<"$err"; then
    failed "topotune $* -> rc=$rc (want $code, '$needle'): $err"
  elif [ "$code" -eq 2 ] && grep -q "internal\|MPI_Abort\|rank 0" <<<"$err"; then
    failed "topotune $* -> a bad input reported as something else: $err"
  fi
}
mkdir "$tmp/w" && cd "$tmp/w" || exit 1

# --- Empty path flags: refused before any work (an unset variable is not "no file" or "/").
sim=(simulate --instance p4d.24xlarge --nodes 1 --algo ring --size 1M)
expect 2 "--trace: the path is empty" "${sim[@]}" --trace ""
expect 2 "--out: the path is empty" plan --instance p4d.24xlarge --nodes 2 --emit all --out ""
expect 2 "--dir: the path is empty" emulate up --files-only --dir ""
expect 2 "the path is empty" calibrate --nccl-tests x.log --instance dgx-a100 -o ""
expect 2 "--plot: the path is empty" validate --nccl-tests x.log --instance dgx-a100 --plot ""
# Input path flags too: "" used to mean "not given" (--calibration "" ran uncalibrated).
expect 2 "--calibration: the path is empty" "${sim[@]}" --calibration ""
expect 2 "--cluster: the path is empty" predict --cluster "" --sizes 1M
expect 2 "--replay: the path is empty" plan --replay ""
expect 2 "--nccl-tests: the path is empty" validate --nccl-tests "" --instance dgx-a100
for f in hostfile agent.sh mpirun.sh cluster.json emulate.json; do
  [ -e "/$f" ] && [ "/$f" -nt "$tmp" ] && failed "emulate --dir '' wrote /$f"
done
[ -z "$(ls -A)" ] || failed "an empty path flag left files: $(ls -A)"

# --- Directories: only the last component is created, and removed again on failure.
expect 2 "only the last component" plan --instance p4d.24xlarge --nodes 2 --emit all --out a/b/c
expect 2 "only the last component" emulate up --files-only --dir a/b
[ ! -e a ] || failed "a missing parent was created: $(find a)"
expect 2 "nosuch.json" plan --instance p4d.24xlarge --nodes 2 --emit all --out new --model nosuch.json
[ ! -e new ] || failed "plan left the directory it created for a failed plan"
expect 0 "" plan --instance p4d.24xlarge --nodes 2 --emit all --out new
[ "$(ls new | wc -l)" -ge 5 ] || failed "plan --out new: $(ls new)"
expect 0 "" emulate up --files-only --dir emu
[ "$(ls emu | tr '\n' ' ')" = "agent.sh cluster.json emulate.json hostfile mpirun.sh " ] ||
  failed "emulate up --files-only --dir emu wrote: $(ls -A emu)"
mkdir emu2 && ln -s "$tmp/victim" emu2/hostfile
expect 2 "symbolic link" emulate up --files-only --dir emu2
[ "$(ls -A emu2)" = hostfile ] || failed "emulate wrote next to a refused target: $(ls -A emu2)"

# --- emulate's ranges at parse time, not "internal: generated cluster JSON".
expect 2 "--ranks-per-node must be 1..64, got 1024" emulate up --files-only --dir r1 --ranks-per-node 1024
expect 2 "--nic must be in 2mbit..1tbit, got 1000 bit/s" emulate up --files-only --dir r2 --nic 1kbit
expect 2 "--uplink must be in 2mbit..1tbit" emulate up --files-only --dir r3 --nodes 4 --racks 2 \
  --uplink 1kbit
[ ! -e r1 ] && [ ! -e r2 ] && [ ! -e r3 ] || failed "a refused emulate left its directory"

# --- Concurrent emits into one directory: each round ends with one plan's whole set.
mkdir race
for round in $(seq 30); do
  "$bin" plan --instance p4d.24xlarge --nodes 2 --emit all --out race >/dev/null 2>&1 &
  "$bin" plan --instance p4d.24xlarge --nodes 4 --emit all --out race >/dev/null 2>&1 &
  wait
  plans=$(cat race/* | grep -o 'on [0-9]* x p4d.24xlarge' | sort -u)
  [ "$(wc -l <<<"$plans")" -eq 1 ] || { failed "round $round: a mixed set: $plans"; break; }
done
ls -A race | grep -q '^\.' && failed "concurrent emits left: $(ls -A race)"

# --- A signal while a large --trace is written: no temp file is left (bounded: ~3 s each).
python3 - "$bin" "$tmp/sig" <<'PY' || failed "a signal during simulate --trace"
import os, signal, subprocess, sys, time
binary, d = sys.argv[1], sys.argv[2]
bad = 0
for name in ("SIGTERM", "SIGINT", "SIGHUP"):
    sig = getattr(signal, name)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    # 64 hosts: a 100 MB trace, whose temp file exists long enough to be seen.
    p = subprocess.Popen([binary, "simulate", "--instance", "p4d.24xlarge", "--nodes", "64",
                          "--algo", "ring", "--size", "64M", "--trace", os.path.join(d, "t.json")],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         preexec_fn=lambda: [signal.signal(s, signal.SIG_DFL) for s in
                                             (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)])
    deadline, seen = time.monotonic() + 120, False
    while p.poll() is None and time.monotonic() < deadline:
        if any(f.startswith(".t.json.tmp.") for f in os.listdir(d)):
            p.send_signal(sig)
            seen = True
            break
    rc = p.wait(timeout=120)
    left = os.listdir(d)
    print(f"{name}: temp file seen {seen}, exit {rc}, left {left}")
    if seen and (rc != -sig or left):
        bad += 1
    if not seen:
        print(f"{name}: the temp file was never seen (too fast to interrupt)")
        bad += 1
sys.exit(1 if bad else 0)
PY

# --- measure --out: a refused path is one line, exit 2, before MPI starts (no MPI_Abort).
if "$bin" measure --help >/dev/null 2>&1; then
  expect 2 "--out: cannot write '/dev/null': it is a character device" measure --sizes 1M --out /dev/null
  expect 2 "No such file or directory" measure --sizes 1M --out "$tmp/missing/m.json"
  [ "$(wc -l <"$tmp/stderr")" -eq 1 ] || failed "measure --out: more than one line: $(cat "$tmp/stderr")"
fi
[ -c /dev/null ] || failed "/dev/null is no longer a character device"

# --- predict --tuner-rules: checked before the work, written whole, only for NCCL's choices.
mkdir "$tmp/rules" && cd "$tmp/rules" || exit 1
pr=(predict --instance p4d.24xlarge --nodes 4 --sizes 1M:64M)
expect 2 "--tuner-rules: the path is empty" "${pr[@]}" --tuner-rules ""
ln -s "$tmp/victim" link.txt
expect 2 "symbolic link" "${pr[@]}" --tuner-rules link.txt
[ ! -e "$tmp/victim" ] || failed "predict --tuner-rules followed a symbolic link"
expect 2 "needs --algo nccl" "${pr[@]}" --algo ring --tuner-rules r.txt
[ ! -e r.txt ] || failed "predict --algo ring --tuner-rules wrote r.txt"
expect 0 "" "${pr[@]}" --tuner-rules r.txt
grep -q "^# collective min_bytes max_bytes nnodes nranks algo proto" r.txt &&
  grep -q "^# calibration: built-in" r.txt ||
  failed "predict --tuner-rules r.txt wrote: $(cat r.txt)"
[ "$(ls -A | tr '\n' ' ')" = "link.txt r.txt " ] || failed "predict --tuner-rules left: $(ls -A)"
cd "$tmp/w" || exit 1

# --- A failed write to stdout says why, also when the output is larger than stdio's buffer.
"$bin" schedule --algo ring --ranks 64 --size 1M --format json >/dev/full 2>"$tmp/stderr"
rc=$?
[ "$rc" -eq 1 ] && grep -qF "cannot write to standard output: No space left on device" "$tmp/stderr" ||
  failed "schedule (large) >/dev/full -> rc=$rc: $(cat "$tmp/stderr")"

cli_expect_finish "writers CLI"
