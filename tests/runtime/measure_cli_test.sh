#!/usr/bin/env bash
# `topotune measure` under mpirun -np 4 on this machine, no namespaces (ctest label mpi).
#  1. a run writes a correct JSON (every row verified: errors 0, spread ordered, rows complete);
#  2. a rank that hangs (stopped with SIGSTOP mid-run) ends the run within --timeout: the other
#     ranks' watchdogs print "topotune: error: ...", a non-zero exit and no JSON;
#  3. a rank killed mid-run (SIGKILL) ends the run with a non-zero exit and no JSON;
#  4. --format csv prints the rows of the --out JSON, value for value;
#  5. --collective reduce_scatter / allgather: ring, hierarchical, rhd and MPI's own, every row
#     verified, busbw with the (n-1)/n factor, the collective in the JSON.
# usage: measure_cli_test.sh TOPOTUNE_BINARY [ALGOS]
set -u
bin=$1
algos=${2:-mpi}
work=$(mktemp -d /tmp/tt-measure-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
mpirun=(mpirun --allow-run-as-root --oversubscribe -np 4)
failures=0
check() { if [ "$1" = ok ]; then echo "PASS: $2"; else echo "FAIL: $2"; failures=$((failures + 1)); fi; }

# 1. a correct run
"${mpirun[@]}" "$bin" measure --algos "$algos" --sizes 64K,1M --warmup 1 --iters 3 \
  --ranks-per-node 2 --out "$work/m.json" > "$work/out1.txt" 2> "$work/err1.txt"
rc=$?
cat "$work/out1.txt"
[ $rc -eq 0 ] && check ok "measure exits 0" || { check no "measure exits 0 (rc=$rc)"; cat "$work/err1.txt"; }
python3 - "$work/m.json" "$algos" <<'PY' && check ok "JSON is complete and every row verified" || check no "JSON content"
import json, sys
m = json.load(open(sys.argv[1]))
algos = sys.argv[2].split(",")
assert m["schema"] == "topotune.measurement/1", m["schema"]
assert m["source"] == "topotune-measure" and m["backend"] == "mpi" and m["ranks"] == 4
rows = m["rows"]
assert [(r["algorithm"], r["bytes"]) for r in rows] == [(a, b) for a in algos for b in (65536, 1048576)], rows
for r in rows:
    assert r["errors"] == 0, r
    assert r["iterations"] == 3
    assert r["count"] == r["bytes"] // 4
    assert 0 < r["time_us_min"] <= r["time_us_p10"] <= r["time_us"] <= r["time_us_p90"] <= r["time_us_max"], r
    assert abs(r["algbw_GBps"] - r["bytes"] / r["time_us"] / 1e3) < 1e-6 * r["algbw_GBps"] + 1e-12
    assert abs(r["busbw_GBps"] - r["algbw_GBps"] * 1.5) < 1e-9
PY
grep -q '^#' "$work/out1.txt" && [ "$(grep -vc '^#' "$work/out1.txt")" -eq $(( $(echo "$algos" | tr ',' '\n' | wc -l) * 2 )) ] \
  && check ok "table has one row per point" || check no "table rows"

# 2. a hanging rank: one rank stopped (SIGSTOP) mid-run; its peers wait for it in a barrier and
#    their watchdogs end the run within --timeout (3 s), mpirun ending the stopped rank too
timeout 120 "${mpirun[@]}" "$bin" measure --algos mpi --sizes 64K --iters 10000000 --timeout 3 \
  --out "$work/m2.json" > "$work/out2.txt" 2> "$work/err2.txt" &
mp=$!
sleep 3
stopped=$(pgrep -P "$(pgrep -P "$mp" -x mpirun || echo "$mp")" -x topotune | sed -n 3p)
if [ -n "$stopped" ]; then
  kill -STOP "$stopped"
  start=$(date +%s)
  wait "$mp"
  rc=$?
  took=$(( $(date +%s) - start ))
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && check ok "hang: non-zero exit ($rc) in ${took}s" || check no "hang: rc=$rc"
  [ $took -le 30 ] && check ok "hang: ended within timeout" || check no "hang: took ${took}s"
  grep -q "topotune: error: rank .*no progress for 3 s" "$work/err2.txt" && check ok "hang: clear error" \
    || { check no "hang: clear error"; cat "$work/err2.txt"; }
  [ -z "$(ls "$work" | grep m2.json)" ] && check ok "hang: no JSON (nor temp file)" || check no "hang: output left"
  kill -CONT "$stopped" 2> /dev/null  # if mpirun left it behind: let it die
else
  kill "$mp"; wait "$mp"
  check no "hang: could not find a rank process of mpirun $mp"
fi

# 3. a rank killed mid-run
"${mpirun[@]}" "$bin" measure --algos mpi --sizes 4M --iters 100000 --timeout 20 \
  --out "$work/m3.json" > "$work/out3.txt" 2> "$work/err3.txt" &
mp=$!
sleep 3
victim=$(pgrep -P "$mp" | sed -n 2p)
if [ -n "$victim" ]; then
  kill -9 "$victim"
  start=$(date +%s)
  wait "$mp"
  rc=$?
  took=$(( $(date +%s) - start ))
  [ $rc -ne 0 ] && check ok "kill: non-zero exit ($rc) after ${took}s" || check no "kill: rc=$rc"
  [ $took -le 25 ] && check ok "kill: ended within the timeout" || check no "kill: took ${took}s"
  grep -qE "topotune: error|exited on signal 9" "$work/err3.txt" && check ok "kill: clear error" \
    || { check no "kill: clear error"; cat "$work/err3.txt"; }
  [ -z "$(ls "$work" | grep m3.json)" ] && check ok "kill: no JSON" || check no "kill: output left"
else
  kill "$mp"; wait "$mp"
  check no "kill: could not find a rank process of mpirun $mp"
fi

# 4. CSV on stdout, the measurement JSON in --out: the same rows at full precision
"${mpirun[@]}" "$bin" measure --algos "$algos" --sizes 64K,1M --warmup 1 --iters 2 \
  --ranks-per-node 2 --format csv --out "$work/m4.json" > "$work/out4.csv" 2> "$work/err4.txt"
python3 - "$work/out4.csv" "$work/m4.json" <<'PY' && check ok "csv rows = JSON rows" || { check no "csv rows"; cat "$work/err4.txt"; }
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = json.load(open(sys.argv[2]))["rows"]
assert len(rows) == len(want) > 0, (len(rows), len(want))
for r, w in zip(rows, want):
    assert int(r["bytes"]) == w["bytes"] and r["algorithm"] == w["algorithm"], (r, w)
    assert float(r["time_us"]) == w["time_us"] and float(r["busbw_GBps"]) == w["busbw_GBps"], (r, w)
    assert int(r["errors"]) == w["errors"] and r["dtype"] == w["dtype"], (r, w)
PY
# 5. reduce-scatter and allgather (uneven blocks: 1025 elements on 4 ranks)
for coll in reduce_scatter allgather; do
  "${mpirun[@]}" "$bin" measure --collective $coll --algos ring,hierarchical,rhd,mpi --sizes 4100,1M \
    --warmup 1 --iters 2 --ranks-per-node 2 --out "$work/m5-$coll.json" > "$work/out5.txt" \
    2> "$work/err5.txt"
  python3 - "$work/m5-$coll.json" $coll <<'PY' && check ok "$coll: rows verified, busbw (n-1)/n" \
    || { check no "$coll: rows"; cat "$work/err5.txt"; }
import json, sys
m = json.load(open(sys.argv[1]))
assert m["collective"] == sys.argv[2], m["collective"]
rows = m["rows"]
assert [(r["algorithm"], r["bytes"]) for r in rows] == [
    (a, b) for a in ("ring", "hierarchical", "rhd", "mpi") for b in (4100, 1048576)], rows
for r in rows:
    assert r["errors"] == 0, r
    assert abs(r["busbw_GBps"] - r["algbw_GBps"] * 0.75) < 1e-9, r
PY
done
exit $failures
