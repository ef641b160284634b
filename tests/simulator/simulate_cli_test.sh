#!/usr/bin/env bash
# `topotune simulate` end to end: the table, JSON with the documented keys (links sorted by busy
# time), a Chrome trace that parses with one event per transfer, and clear errors (exit 2).
# Usage: simulate_cli_test.sh path/to/topotune
set -u
source "$(dirname "$0")/../lib/cli_expect.sh"
cli_expect_init "$@"
cli_prefix=(simulate)
p4d=(--instance p4d.24xlarge --nodes 2)
expect 0 "bottleneck links" "${p4d[@]}" --algo ring --size 64M
expect 0 "busbw" "${p4d[@]}" --algo hierarchical --inner rhd --size 64M
expect 0 "partition placement" "${p4d[@]}" --algo tree --size 1M --placement partition
expect 2 "--nodes must be in 1..65536, got 0" --instance p4d.24xlarge --nodes 0 --algo ring --size 1M
expect 2 "unknown instance" --instance p9.huge --nodes 2 --algo ring --size 1M
expect 2 "give --instance NAME --nodes N, or --cluster FILE" --algo ring --size 1M
expect 2 "--format: must be table, json or csv, got 'xml'" "${p4d[@]}" --algo ring --size 1M --format xml
expect 2 "--reduction must be serial, overlapped or none, got 'maybe'" "${p4d[@]}" --algo ring --size 1M --reduction maybe
expect 2 "unknown algorithm" "${p4d[@]}" --algo rong --size 1M
# 65,536 GPUs (8,192 x p5, hierarchical(ring)): 1.07 G transfers, written reduced by the fabric's
# translation period (a 128-node pod under the super-spine: 16.8 M representatives) and simulated
# within 2 GiB (the run checks its resident size); the flat ring over the 65,536 ranks does not
# fit that even reduced: exit 2 with its estimate.
TOPOTUNE_MEMORY_LIMIT_MB=2048 expect 0 "transfers    1074528256" --instance p5.48xlarge --nodes 8192 --algo hierarchical --size 1G
TOPOTUNE_MEMORY_LIMIT_MB=2048 expect 2 "needs 13.0 GiB, 2.0 GiB available" --instance p5.48xlarge --nodes 8192 --algo ring --size 1G

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
# --calibration (docs/calibration.md): halving the network class's efficiency on a cluster
# whose network is the bottleneck doubles the bandwidth term. Two hosts x 1 GPU, PCIe 31.5 GB/s,
# one 100 Gbps InfiniBand NIC: ring allreduce of S bytes on 2 ranks is 2 steps of S/2 over
# one route GPU -> PCIe switch -> NIC -> switch -> NIC -> PCIe switch -> GPU, so with
# --reduction none  T(S) = 2 L + S / (R e)  (L: the route's latency, R e: the NIC's 12.5 GB/s
# x efficiency, the route's narrowest link as long as e < 31.5 x pcie_eff / 12.5). Hence
#   T(S, e/2) - T(S, e) = S / (R e)   and the slope dT/dS doubles; both are checked below.
cat > "$tmp/one-gpu.json" <<'JSON'
{"schema": "topotune.cluster/1",
 "instance": {"schema": "topotune.instance/1", "name": "ib-1gpu", "vendor": "custom",
   "gpu": {"count": {"value": 1, "source": "test"}, "model": {"value": "A100", "source": "test"},
           "arch": {"value": "ampere", "source": "test"}},
   "intra": {"fabric": {"value": "pcie", "source": "test"}},
   "host": {"cpu_sockets": {"value": 1, "source": "test"},
            "pcie_switches": {"value": [{"socket": 0, "gpus": [0], "nics": [0]}], "source": "test"}},
   "network": {"nics": {"value": 1, "source": "test"}, "nic_Gbps": {"value": 100, "source": "test"},
               "transport": {"value": "infiniband", "source": "test"},
               "gpudirect_rdma": {"value": true, "source": "test"}}},
 "nodes": 2, "overrides": {"host.pcie_GBps": 31.5}}
JSON
for e in 0.8 0.4; do
  printf '{"schema": "topotune.nccl_model/2", "parameters": {"net_efficiency.infiniband": %s, "nic_latency_us.infiniband": 6}}\n' \
    "$e" > "$tmp/cal-$e.json"
  for size in 64M 128M; do
    "$bin" simulate --cluster "$tmp/one-gpu.json" --algo ring --size $size --reduction none \
      --calibration "$tmp/cal-$e.json" --format json > "$tmp/sim-$e-$size.json" ||
      { echo "FAIL: simulate --calibration cal-$e.json --size $size"; fails=$((fails + 1)); }
  done
done
"$bin" simulate --cluster "$tmp/one-gpu.json" --algo ring --size 64M --reduction none \
  --format json > "$tmp/sim-none.json" || { echo "FAIL: simulate without calibration"; fails=$((fails + 1)); }
python3 - "$tmp" "$(dirname "$0")/../../data/nccl_model.json" <<'PY' || fails=$((fails + 1))
import json, sys
d = sys.argv[1]
fitted = json.load(open(sys.argv[2]))["parameters"]["net_efficiency.infiniband"]["value"]
def run(name):
    return json.load(open(f"{d}/sim-{name}.json"))
def network_capacity(out):  # effective NIC rate (bytes/s) of the network links, all equal
    caps = {l["capacity_GBps"] for l in out["links"] if l["kind"] == "network"}
    assert len(caps) == 1, caps
    return caps.pop() * 1e9
S = 64 * 2**20
a, b = run("0.8-64M"), run("0.4-64M")
# The calibrated efficiency reached the links: 12.5 GB/s nominal x 0.8, then x 0.4.
assert abs(network_capacity(a) - 12.5e9 * 0.8) < 1e3, network_capacity(a)
assert abs(network_capacity(b) - 12.5e9 * 0.4) < 1e3, network_capacity(b)
# Without --calibration the fitted model's figure applies (one set of physical parameters for
# every algorithm; the cluster file states no link parameters of its own).
assert abs(network_capacity(run("none")) - 12.5e9 * fitted) < 1e3, (network_capacity(run("none")), fitted)
# T(S, e/2) - T(S, e) = S / (R e), R e = 10 GB/s.
diff = b["time_s"] - a["time_s"]
assert abs(diff - S / (12.5e9 * 0.8)) < 1e-9 * S / 1e9 + 1e-9, (diff, S / 10e9)
# The slope doubles: (T(2S) - T(S)) at e/2 is twice that at e.
slope_a = run("0.8-128M")["time_s"] - a["time_s"]
slope_b = run("0.4-128M")["time_s"] - b["time_s"]
assert abs(slope_b / slope_a - 2) < 1e-6, slope_b / slope_a
# ... and halving made it slower by (2L + 2B) / (2L + B), B = S / (R e): the derived factor.
L2 = a["time_s"] - S / (12.5e9 * 0.8)
factor = (L2 + 2 * S / 10e9) / (L2 + S / 10e9)
assert abs(b["time_s"] / a["time_s"] - factor) < 1e-9, (b["time_s"] / a["time_s"], factor)
PY
# Calibration files with an unknown key or a bad value: exit 2, naming the key.
printf '{"schema": "topotune.nccl_model/2", "parameters": {"net_eficiency.infiniband": 0.5}}\n' > "$tmp/typo.json"
printf '{"schema": "topotune.nccl_model/2", "parameters": {"net_efficiency.infiniband": 1.7}}\n' > "$tmp/bad.json"
printf '{"schema": "topotune.nccl_model/2", "parameters": {}, "links": {}}\n' > "$tmp/key.json"
printf '{"schema": "topotune.nccl_model/2", "parameters": {}, "link_params": {"network": {"latency_us": -1}}}\n' > "$tmp/lp.json"
one=(--cluster "$tmp/one-gpu.json" --algo ring --size 1M)
expect 2 "unknown parameter 'net_eficiency.infiniband'" "${one[@]}" --calibration "$tmp/typo.json"
expect 2 "'net_efficiency.infiniband' must be in [0.001, 1]" "${one[@]}" --calibration "$tmp/bad.json"
expect 2 "unknown key 'links'" "${one[@]}" --calibration "$tmp/key.json"
expect 2 "link_params.network.latency_us" "${one[@]}" --calibration "$tmp/lp.json"
expect 2 "cannot read" "${one[@]}" --calibration "$tmp/missing.json"

cli_expect_finish "simulate CLI"
