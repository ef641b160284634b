#!/usr/bin/env bash
# `topotune simulate` end to end: the table, JSON with the documented keys (links sorted by busy
# time), a Chrome trace that parses with one event per transfer, and clear errors (exit 2).
# Usage: simulate_cli_test.sh path/to/topotune
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
expect() {  # expect CODE NEEDLE ARGS...
  local code=$1 needle=$2
  shift 2
  out=$("$bin" simulate "$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$code" ] || ! grep -qF -- "$needle" <<<"$out"; then
    echo "FAIL: topotune simulate $* -> rc=$rc (want $code, '$needle'), output:"
    echo "$out"
    fails=$((fails + 1))
  fi
}
p4d=(--instance p4d.24xlarge --nodes 2)
expect 0 "bottleneck links" "${p4d[@]}" --algo ring --size 64M
expect 0 "busbw" "${p4d[@]}" --algo hierarchical --inner rhd --size 64M
expect 0 "partition placement" "${p4d[@]}" --algo tree --size 1M --placement partition
expect 2 "--nodes must be at least 1" --instance p4d.24xlarge --nodes 0 --algo ring --size 1M
expect 2 "unknown instance" --instance p9.huge --nodes 2 --algo ring --size 1M
expect 2 "give --instance NAME --nodes N, or --cluster FILE" --algo ring --size 1M
expect 2 "--format must be table or json" "${p4d[@]}" --algo ring --size 1M --format xml
expect 2 "--reduction must be" "${p4d[@]}" --algo ring --size 1M --reduction maybe
expect 2 "unknown algorithm" "${p4d[@]}" --algo rong --size 1M

# JSON: keys, links sorted by busy time (descending), utilisation = busy / time.
if ! "$bin" simulate "${p4d[@]}" --algo ring --channels 2 --size 64M --format json \
    --trace "$tmp/trace.json" >"$tmp/out.json"; then
  echo "FAIL: json run"; fails=$((fails + 1))
fi
python3 - "$tmp/out.json" "$tmp/trace.json" <<'PY' || fails=$((fails + 1))
import json, sys
out = json.load(open(sys.argv[1]))
for key in ("time_s", "algbw_GBps", "busbw_GBps", "links"):
    assert key in out, key
assert out["time_s"] > 0 and abs(out["algbw_GBps"] - 64 * 2**20 / out["time_s"] / 1e9) < 1e-6
assert abs(out["busbw_GBps"] - out["algbw_GBps"] * 2 * 15 / 16) < 1e-6
busy = [l["busy_s"] for l in out["links"]]
assert busy == sorted(busy, reverse=True), "links not sorted by busy time"
for l in out["links"]:
    assert set(("src", "dst", "kind", "bytes", "busy_s", "utilisation")) <= set(l), l
    assert abs(l["utilisation"] - l["busy_s"] / out["time_s"]) < 1e-9
trace = json.load(open(sys.argv[2]))
xs = [e for e in trace["traceEvents"] if e["ph"] == "X"]
assert len(xs) == out["transfers"], (len(xs), out["transfers"])
for e in xs:
    assert set(("src", "dst", "bytes", "reduce", "channel")) <= set(e["args"]), e
    assert e["dur"] >= 0 and e["ts"] >= 0
assert max(e["ts"] + e["dur"] for e in xs) <= out["time_s"] * 1e6 * (1 + 1e-9)
PY
if [ "$fails" -ne 0 ]; then echo "$fails failure(s)"; exit 1; fi
echo "simulate CLI: ok"
