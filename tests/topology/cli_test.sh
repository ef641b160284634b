#!/usr/bin/env bash
# CLI behaviour of `topotune instances` and `topotune topo`: outputs, exit codes, bad input
# (exit 2, a clear message, nothing on stdout), --help examples, and that DOT renders.
# Usage: cli_test.sh <path to topotune>
set -uo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
check() { if ! eval "$2"; then echo "FAIL: $1"; failures=$((failures + 1)); fi; }

# Expect exit 2, empty stdout and `pattern` in stderr.
bad() {
  local pattern=$1; shift
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  check "'$*' exits 2 (got $rc)" "[ $rc -eq 2 ]"
  check "'$*' writes nothing to stdout" "[ ! -s $tmp/out ]"
  check "'$*' says '$pattern' (stderr: $(head -c 300 "$tmp/err"))" "grep -qF -- \"$pattern\" $tmp/err"
}

"$bin" instances >"$tmp/inst.txt"; check "instances runs" "[ $? -eq 0 ]"
check "instances lists p4d.24xlarge" "grep -q '^p4d.24xlarge ' $tmp/inst.txt"
"$bin" topo --instance p4d.24xlarge --nodes 4 >"$tmp/topo.txt"; check "topo table runs" "[ $? -eq 0 ]"
check "table shows 32 GPUs" "grep -q '^GPUs  *32 ' $tmp/topo.txt"
check "table shows bisection" "grep -q '^bisection' $tmp/topo.txt"
"$bin" topo --instance p4d.24xlarge --nodes 4 --format json >"$tmp/p4d.json"
check "topo json runs" "[ $? -eq 0 ]"
if command -v python3 >/dev/null 2>&1; then
  python3 - "$tmp/p4d.json" <<'PY' || { echo "FAIL: p4d x 4 JSON content"; failures=$((failures + 1)); }
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("instance", "nodes", "gpus", "nics", "links", "nvlink_domains",
          "bisection_bandwidth_Bps", "host_nic_bandwidth_Bps", "placement", "racks"):
    assert k in d, k
assert d["instance"] == "p4d.24xlarge" and d["nodes"] == 4
assert len(d["gpus"]) == 32, len(d["gpus"])
assert len(d["nics"]) == 16 and all(n["bandwidth_Bps"] == 100e9 / 8 for n in d["nics"])
doms = d["nvlink_domains"]
assert len(doms) == 4 and all(len(x["gpus"]) == 8 and x["per_gpu_bandwidth_Bps"] == 300e9 for x in doms)
for l in d["links"]:
    assert set(l) >= {"src", "dst", "kind", "bandwidth_Bps", "latency_s"}
PY
  "$bin" instances --format json | python3 -c 'import json,sys; assert len(json.load(sys.stdin)) >= 12' \
    || { echo "FAIL: instances json"; failures=$((failures + 1)); }
fi
"$bin" topo --instance p3.16xlarge --nodes 2 --format dot >"$tmp/p3.dot"; check "topo dot runs" "[ $? -eq 0 ]"
check "dot has host 0 in detail" "grep -q 'h0/gpu7' $tmp/p3.dot"
if command -v dot >/dev/null 2>&1; then
  for p in cluster partition spread; do
    "$bin" topo --instance p4d.24xlarge --nodes 9 --placement $p --format dot | dot -Tsvg >"$tmp/x.svg"
    check "dot -Tsvg renders the $p graph" "[ \${PIPESTATUS[0]:-0} -eq 0 ] && grep -q '<svg' $tmp/x.svg"
  done
  dot -Tsvg "$tmp/p3.dot" >"$tmp/p3.svg"; check "dot -Tsvg renders p3" "[ $? -eq 0 ]"
else
  echo "note: graphviz 'dot' not installed; render check skipped"
fi
for sub in instances topo; do
  "$bin" $sub --help >"$tmp/help"; check "$sub --help exits 0" "[ $? -eq 0 ]"
  check "$sub --help has examples" "grep -q 'Examples:' $tmp/help"
done

bad "did you mean p4d.24xlarge" topo --instance p4d.24xlarg --nodes 4
bad "--nodes must be in 1..65536, got 0" topo --instance p4d.24xlarge --nodes 0
bad "--nodes must be in 1..65536, got 100000000" topo --instance p4d.24xlarge --nodes 100000000
bad "--nodes must be in 1..65536, got -5" topo --instance p4d.24xlarge --nodes -5
# --nodes defaults to 1 with --instance, as in every command (cli/cluster_flags.h).
"$bin" topo --instance p4d.24xlarge >"$tmp/one.txt"
check "topo without --nodes is one node" "grep -q '^nodes  *1 ' $tmp/one.txt"
bad "unknown placement 'rack'" topo --instance p4d.24xlarge --nodes 2 --placement rack
bad "must be table, json, dot or csv, got 'xml'" topo --instance p4d.24xlarge --nodes 2 --format xml
bad "cannot read" topo --cluster "$tmp/missing.json"
printf '{"schema": "topotune.cluster/1",\n "nodes": 2,,\n}\n' >"$tmp/syntax.json"
bad "syntax.json:2:13:" topo --cluster "$tmp/syntax.json"
printf '{"schema": "topotune.cluster/1", "instance": "p4d.24xlarge", "nodes": 2, "overrides": {"network.nic_Gbps": -100}}' >"$tmp/neg.json"
bad "overrides.network.nic_Gbps: must be > 0" topo --cluster "$tmp/neg.json"
printf '{"schema": "topotune.cluster/1", "instance": {"schema": "topotune.instance/1"}, "nodes": 2}' >"$tmp/inl.json"
bad "instance.name: missing" topo --cluster "$tmp/inl.json"

if [ $failures -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "cli_test: all checks passed"
