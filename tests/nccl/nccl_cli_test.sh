#!/usr/bin/env bash
# predict / validate / calibrate end to end on a small log (rows of the calibration set's
# hgx_a100 entry): exit codes, the JSON shape predict promises, validate's summary, an
# atomically written plot when gnuplot exists, and a calibration file predict accepts.
# Usage: nccl_cli_test.sh path/to/topotune
set -u
source "$(dirname "$0")/../lib/cli_expect.sh"
cli_expect_init "$@"
cat > "$tmp/a100.log" <<'LOG'
# nThread 1 nGpus 8 minBytes 1 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 validation: 0
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
        8192          2048     float     sum      -1    35.91    0.23    0.40    N/A    36.07    0.23    0.40    N/A
     1048576        262144     float     sum      -1    74.78   14.02   24.54    N/A    76.17   13.77   24.09    N/A
    67108864      16777216     float     sum      -1    584.5  114.81  200.91    N/A    581.9  115.33  201.82    N/A
  8589934592    2147483648     float     sum      -1    63896  134.44  235.26    N/A    63959  134.30  235.03    N/A
# Avg bus bandwidth    : 115.0
LOG
expect 0 '"algbw_GBps"' predict --instance p5.48xlarge --nodes 2 --sizes 1M,1G --format json
expect 0 '"protocol": "Simple"' predict --instance dgx-h100 --nodes 1 --sizes 1G --format json
expect 0 'nvls      Simple' predict --instance dgx-h100 --sizes 1G --explain
expect 0 'disabled: no NVLS (needs NVSwitch gen3+, SM90+' predict --instance p4d.24xlarge --sizes 1M --explain
expect 0 'closed-form' predict --instance p4d.24xlarge --nodes 2 --sizes 1M --algo rhd
expect 0 'simulated' predict --instance p4d.24xlarge --nodes 2 --sizes 1M --algo ring --simulate
expect 2 'unknown instance' predict --instance p9.bogus --nodes 2
expect 2 'bad NCCL version' predict --instance p4d.24xlarge --nccl-version two
expect 2 'unknown NCCL algorithm' predict --instance p4d.24xlarge --nccl-algo rign
expect 0 'sizes >= 1 MiB:  3, median |busbw error|' validate --nccl-tests "$tmp/a100.log" --instance dgx-a100
expect 2 'the log has 8 ranks but p4d.24xlarge x 2 has 16' validate --nccl-tests "$tmp/a100.log" --instance p4d.24xlarge --nodes 2
printf '           8             2     float     sum      -1    13.71\n' > "$tmp/cut.log"
expect 2 'cut.log:line 1: unrecognised result row (6 fields)' validate --nccl-tests "$tmp/cut.log" --instance dgx-a100
expect 2 'exactly one of' validate --instance dgx-a100
cat > "$tmp/m.json" <<'JSON'
{"schema": "topotune.measurement/1", "source": "topotune-measure", "backend": "nccl",
 "collective": "allreduce", "ranks": 8, "nodes": 1,
 "rows": [{"algorithm": "nccl", "bytes": 67108864, "time_us": 584.5},
          {"algorithm": "nccl", "bytes": 8589934592, "time_us": 63896}]}
JSON
expect 0 'sizes >= 1 MiB:  2' validate --measured "$tmp/m.json" --instance dgx-a100
if command -v gnuplot >/dev/null; then
  expect 0 'plot written to' validate --nccl-tests "$tmp/a100.log" --instance dgx-a100 --plot "$tmp/busbw.svg"
  grep -q '<svg' "$tmp/busbw.svg" || { echo "FAIL: no svg"; fails=$((fails + 1)); }
  ls "$tmp" | grep -q '\.tmp\.' && { echo "FAIL: temporary plot files left"; fails=$((fails + 1)); }
fi
expect 0 'written to' calibrate --nccl-tests "$tmp/a100.log" --instance dgx-a100 --params nvlink_efficiency --rounds 20 -o "$tmp/cal.json"
expect 0 'busbw' predict --instance dgx-a100 --sizes 1G --calibration "$tmp/cal.json"
expect 2 'is an NCCL constant or fixed assumption' calibrate --nccl-tests "$tmp/a100.log" --instance dgx-a100 --params pcie_efficiency -o "$tmp/x.json"
[ -e "$tmp/x.json" ] && { echo "FAIL: failed calibrate left a file"; fails=$((fails + 1)); }
# validate --measured: each row predicted by its own algorithm's model. The expectations are
# computed by other commands: `topotune simulate` for topotune's schedules (with the options the
# JSON records: channels 2), `topotune predict` for the nccl row.
printf '{"schema": "topotune.cluster/1", "instance": "p4d.24xlarge", "nodes": 2}\n' > "$tmp/c.json"
cat > "$tmp/mixed.json" <<'JSON'
{"schema": "topotune.measurement/1", "source": "topotune-measure", "backend": "mpi",
 "collective": "allreduce", "ranks": 16, "nodes": 2, "channels": 2,
 "rows": [{"algorithm": "ring", "bytes": 4194304, "time_us": 900},
          {"algorithm": "hierarchical:tree", "bytes": 4194304, "time_us": 800},
          {"algorithm": "ps:cpu", "bytes": 1048576, "time_us": 3000},
          {"algorithm": "mpi", "bytes": 1048576, "time_us": 700},
          {"algorithm": "nccl", "bytes": 4194304, "time_us": 400}]}
JSON
expect 0 'ring: sizes >= 1 MiB:  1' validate --measured "$tmp/mixed.json" --cluster "$tmp/c.json"
"$bin" validate --measured "$tmp/mixed.json" --cluster "$tmp/c.json" > "$tmp/mixed.txt" 2>&1 ||
  { echo "FAIL: validate --measured mixed.json"; fails=$((fails + 1)); }
python3 - "$bin" "$tmp" <<'PY' || fails=$((fails + 1))
import json, subprocess, sys
bin, d = sys.argv[1], sys.argv[2]
rows = [l.split() for l in open(f"{d}/mixed.txt") if l.strip() and not l.startswith("#")]
assert [r[1] for r in rows] == ["ring", "hierarchical:tree", "ps:cpu", "mpi", "nccl"], rows
def run(*args):
    return json.loads(subprocess.run([bin, *args], check=True, capture_output=True,
                                     text=True).stdout)
def simulate(algo, size, *extra):
    out = run("simulate", "--cluster", f"{d}/c.json", "--algo", algo, "--size", size,
              "--channels", "2", "--format", "json", *extra)
    return out["time_s"] * 1e6
want = {"ring": simulate("ring", "4194304"),
        "hierarchical:tree": simulate("hierarchical:tree", "4194304"),
        "ps:cpu": simulate("ps", "1048576", "--ps-placement", "cpu")}
nccl = run("predict", "--cluster", f"{d}/c.json", "--sizes", "4194304", "--format", "json")
want["nccl"] = nccl["rows"][0]["time_us"]
for r in rows:
    if r[1] in want:  # column 4: predicted time (us), printed with 2 decimals
        assert abs(float(r[3]) - want[r[1]]) <= 0.0051, (r, want[r[1]])
# The Open MPI model row is a simulated schedule too, not NCCL's prediction.
assert "Open MPI" in " ".join(rows[3]), rows[3]
PY
expect 2 "unknown algorithm" validate --measured <(sed 's/"ring"/"rnig"/' "$tmp/mixed.json") --cluster "$tmp/c.json"
# --calibration on the topology side (docs/calibration.md): predict --algo and plan use the
# same calibrated cluster as simulate. The file only moves EFA v1 (p4d's NIC class) figures.
printf '{"schema": "topotune.nccl_model/2", "parameters": {"net_efficiency.efa_srd": 0.5, "nic_latency_us.efa_srd": 20}, "link_params": {"nvlink": {"latency_us": 0.7}}}\n' > "$tmp/cal-links.json"
python3 - "$bin" "$tmp" <<'PY' || fails=$((fails + 1))
import json, subprocess, sys
bin, d = sys.argv[1], sys.argv[2]
def run(*args):
    return json.loads(subprocess.run([bin, *args], check=True, capture_output=True,
                                     text=True).stdout)
cal = ["--calibration", f"{d}/cal-links.json"]
def predict(*extra):
    out = run("predict", "--instance", "p4d.24xlarge", "--nodes", "2", "--algo", "ring",
              "--sizes", "16M", "--simulate", "--format", "json", *extra)
    return out["rows"][0]["time_us"]
def simulate(*extra):
    out = run("simulate", "--instance", "p4d.24xlarge", "--nodes", "2", "--algo", "ring",
              "--size", "16M", "--format", "json", *extra)
    return out["time_s"] * 1e6
# Same calibrated cluster in predict --simulate and simulate; predict adds NCCL's software
# costs (Simple protocol's per-step and per-collective constants, which this file does not
# change), so the difference is positive and the same with and without the file; and the
# calibration changed the simulation.
extra = predict(*cal) - simulate(*cal)
assert extra > 0 and abs(extra - (predict() - simulate())) < 1e-6 * simulate(*cal), extra
assert simulate(*cal) > 1.2 * simulate(), (simulate(*cal), simulate())
# The closed form sees the calibrated links too.
closed = lambda *extra: run("predict", "--instance", "p4d.24xlarge", "--nodes", "2", "--algo",
                            "ring", "--sizes", "16M", "--format", "json", *extra)["rows"][0]["time_us"]
assert closed(*cal) > 1.2 * closed(), (closed(*cal), closed())
# plan embeds the calibrated link classes (so --replay reuses them) and the file itself.
plan = run("plan", "--instance", "p4d.24xlarge", "--nodes", "2", "--format", "json", *cal)
lp = plan["inputs"]["cluster_spec"]["link_params"]
assert lp["network"]["efficiency"] == 0.5, lp          # net_efficiency.efa_srd
assert abs(lp["network"]["latency_us"] - 10) < 1e-9, lp  # 20 us per crossing / 2 hops
assert abs(lp["nvlink"]["latency_us"] - 0.7) < 1e-9, lp  # the link_params section
assert plan["inputs"]["calibration"]["parameters"]["net_efficiency.efa_srd"] == 0.5
# Without --calibration the fitted model's figure (data/nccl_model.json) is the link's.
plain = run("plan", "--instance", "p4d.24xlarge", "--nodes", "2", "--format", "json")
fitted = plain["inputs"]["nccl_params"]["parameters"]["net_efficiency.efa_srd"]["value"]
assert plain["inputs"]["cluster_spec"]["link_params"]["network"]["efficiency"] == fitted
PY
expect 2 "unknown key 'link_param'" plan --instance p4d.24xlarge --nodes 2 --calibration <(echo '{"schema": "topotune.nccl_model/2", "parameters": {}, "link_param": {}}')
# calibrate --measured with rows of topotune's algorithms fits the link classes with the
# simulator as the model: runs simulated on a cluster whose network class is (0.5, 20 us)
# are fitted from the defaults (0.85, 2.5 us) and the truth comes back; validate with the
# written calibration then predicts those runs exactly.
printf '{"schema": "topotune.cluster/1", "instance": "g4dn.12xlarge", "nodes": 2, "link_params": {"network": {"efficiency": 0.5, "latency_us": 20}}}\n' > "$tmp/truth.json"
python3 - "$bin" "$tmp" <<'PY' || fails=$((fails + 1))
import json, subprocess, sys
bin, d = sys.argv[1], sys.argv[2]
rows = []
for algo in ("ring", "rhd"):
    for size in (1 << 20, 8 << 20, 64 << 20):
        out = json.loads(subprocess.run(
            [bin, "simulate", "--cluster", f"{d}/truth.json", "--algo", algo, "--size", str(size),
             "--format", "json"], check=True, capture_output=True, text=True).stdout)
        rows.append({"algorithm": algo, "bytes": size, "time_us": out["time_s"] * 1e6})
json.dump({"schema": "topotune.measurement/1", "source": "topotune-simulate", "backend": "",
           "collective": "allreduce", "ranks": 8, "nodes": 2, "rows": rows},
          open(f"{d}/sim-runs.json", "w"))
PY
expect 0 'link classes (flow simulator on 1 run(s))' calibrate --measured "$tmp/sim-runs.json" --instance g4dn.12xlarge --link-params network.efficiency,network.latency_us -o "$tmp/fit.json"
python3 - "$tmp/fit.json" <<'PY' || fails=$((fails + 1))
import json, sys
net = json.load(open(sys.argv[1]))["link_params"]["network"]
assert abs(net["efficiency"] - 0.5) < 0.005 and abs(net["latency_us"] - 20) < 0.2, net
PY
expect 0 'sizes >= 1 MiB:  6, median |busbw error|   0.0%' validate --measured "$tmp/sim-runs.json" --instance g4dn.12xlarge --calibration "$tmp/fit.json"
expect 2 'give --instance or --cluster' calibrate --measured "$tmp/sim-runs.json" -o "$tmp/none.json"
expect 2 "unknown link parameter 'network.eficiency'" calibrate --measured "$tmp/sim-runs.json" --instance g4dn.12xlarge --link-params network.eficiency -o "$tmp/none.json"
[ -e "$tmp/none.json" ] && { echo "FAIL: failed calibrate left a file"; fails=$((fails + 1)); }
# validate as a health check on a real healthy log (data/validation's p4d 2.23.4 entry, as
# scripts/accuracy.py writes it) and on the same log with its rows >= 64 MiB at 30 % busbw.
root=$(cd "$(dirname "$0")/../.." && pwd)
python3 - "$root" "$tmp" <<'PY' || fails=$((fails + 1))
import json, sys
sys.path.insert(0, sys.argv[1] + '/scripts')
import accuracy
entries = json.load(open(sys.argv[1] + '/data/validation/nccl_tests_calibration.json'))
e = next(x for x in entries if x['id'] == 'aws_p4d_2n_dlami_nccl2.23.4')
open(sys.argv[2] + '/healthy.log', 'w').write(accuracy.to_log(e))
gb = next(x for x in entries if x['id'] == 'oci_gb300_2n_1rack_mnnvl_nccl2.28.7')
open(sys.argv[2] + '/gb300.log', 'w').write(accuracy.to_log(gb))
for r in e['rows']:
    if r['bytes'] >= 64 << 20:
        for side in ('oop', 'ip'):
            r[side + '_time_us'] /= 0.3
            r[side + '_algbw'] *= 0.3
            r[side + '_busbw'] *= 0.3
open(sys.argv[2] + '/degraded.log', 'w').write(accuracy.to_log(e))
PY
expect 0 'verdict: healthy: within the model' validate --nccl-tests "$tmp/healthy.log" --instance p4d.24xlarge --nodes 2
# The same on a real all_gather log (data/validation's 10-node x 4-GPU H100 run) without the
# line that names its binary, as nccl-tests before 2.17 prints it: read from its columns.
python3 - "$root" "$tmp" <<'PY' || fails=$((fails + 1))
import json, sys
sys.path.insert(0, sys.argv[1] + '/scripts')
import accuracy
entries = json.load(open(accuracy.ADDED))
e = next(x for x in entries if x['id'] == 'h100_10n4g_allgather_xxrjun_nccl2.29.2')
unnamed = lambda: ''.join(l for l in accuracy.to_log(e).splitlines(True)
                          if 'Collective test starting' not in l)
open(sys.argv[2] + '/ag.log', 'w').write(unnamed())
for r in e['rows']:
    if r['bytes'] >= 256 << 20:
        for side in ('oop', 'ip'):
            r[side + '_time_us'] /= 0.3
            r[side + '_algbw'] *= 0.3
            r[side + '_busbw'] *= 0.3
open(sys.argv[2] + '/ag_degraded.log', 'w').write(unnamed())
PY
ag_cluster="$root/data/validation/clusters/h100_10n4g_allgather_xxrjun_nccl2.29.2.json"
expect 0 '40 ranks, allgather' validate --nccl-tests "$tmp/ag.log" --cluster "$ag_cluster"
expect 0 'verdict: healthy: within the model' validate --nccl-tests "$tmp/ag.log" --cluster "$ag_cluster"
expect 0 'verdict: underperforming: busbw at 3' validate --nccl-tests "$tmp/ag_degraded.log" --cluster "$ag_cluster"
# --collective overrides what the log says, in validate and (per run) in calibrate, with
# predict's grammar; predict prints all_gather's size as the whole buffer and its count as one
# rank's elements, as all_gather_perf does (1 MiB on 16 ranks: 16384 floats per rank).
expect 0 '40 ranks, allreduce' validate --nccl-tests "$tmp/ag.log" --cluster "$ag_cluster" --collective allreduce
expect 0 '40 ranks, reduce_scatter' validate --nccl-tests "$tmp/ag.log" --cluster "$ag_cluster" --collective reduce-scatter
expect 2 "--collective: unknown collective 'alltoall'" validate --nccl-tests "$tmp/ag.log" --cluster "$ag_cluster" --collective alltoall
expect 2 'measured allreduce' validate --measured "$tmp/m.json" --instance dgx-a100 --collective allgather
for c in '' allgather allreduce; do  # the fit's report: each run's error before and after
  "$bin" calibrate --nccl-tests "$tmp/ag.log" --cluster "$ag_cluster" --params net_efficiency.infiniband --rounds 1 --collective "$c" -o "$tmp/c.json" > "$tmp/c_$c.txt"
done
if ! cmp -s "$tmp/c_.txt" "$tmp/c_allgather.txt"; then
  echo "FAIL: calibrate --collective '' did not read the log's all_gather"; fails=$((fails + 1))
fi
if cmp -s "$tmp/c_allgather.txt" "$tmp/c_allreduce.txt"; then
  echo "FAIL: calibrate --collective allreduce did not override the log's all_gather"; fails=$((fails + 1))
fi
expect 0 '     1048576         16384     float' predict --instance p4d.24xlarge --nodes 2 --collective allgather --sizes 1M
expect 0 '     1048576         16384     float' predict --instance p4d.24xlarge --nodes 2 --collective reduce_scatter --sizes 1M
expect 0 '     1048576        262144     float' predict --instance p4d.24xlarge --nodes 2 --collective allreduce --sizes 1M
expect 0 '        1000            12     float' predict --instance p4d.24xlarge --nodes 2 --collective allgather --sizes 1000
expect 0 'verdict: underperforming: busbw at 3' validate --nccl-tests "$tmp/degraded.log" --instance p4d.24xlarge --nodes 2
expect 0 'of predicted from 64 MiB' validate --nccl-tests "$tmp/degraded.log" --instance p4d.24xlarge --nodes 2
expect 0 'line rate 4 x 100 Gbps = 50.0 GB/s per node): check EFA/GPUDirect RDMA' validate --nccl-tests "$tmp/degraded.log" --instance p4d.24xlarge --nodes 2
expect 0 "warning: the log's GPUs are 'NVIDIA A100-SXM4-40GB' but dgx-h100" validate --nccl-tests "$tmp/healthy.log" --instance dgx-h100 --nodes 2
# The GB300 rack's 2 hosts as one 8-GPU node (how such racks were described before
# intra.nvlink_domain_hosts): the host count contradicts --nodes, and validate says so.
python3 - "$root/data/validation/clusters/oci_gb300_2n_1rack_mnnvl_nccl2.28.7.json" "$tmp/gb300_one_node.json" <<'PY' || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
inst = d['instance']
inst['gpu']['count']['value'] = 8
inst['network']['nics']['value'] = 8
inst['host']['pcie_switches']['value'] = [{"socket": 0, "gpus": [g], "nics": [g]} for g in range(8)]
del inst['intra']['nvlink_domain_hosts']
d['nodes'] = 1
json.dump(d, open(sys.argv[2], 'w'))
PY
expect 0 "warning: the log's Rank lines name 2 host(s) but --nodes is 1" validate --nccl-tests "$tmp/gb300.log" --cluster "$tmp/gb300_one_node.json" --nodes 1
# Described as it is, 2 hosts of 4 GPUs in one NVLink domain: nothing to warn about.
expect 0 'verdict:' validate --nccl-tests "$tmp/gb300.log" --cluster "$root/data/validation/clusters/oci_gb300_2n_1rack_mnnvl_nccl2.28.7.json"
if "$bin" validate --nccl-tests "$tmp/gb300.log" --cluster "$root/data/validation/clusters/oci_gb300_2n_1rack_mnnvl_nccl2.28.7.json" | grep -q warning; then
  echo "FAIL: warning on the GB300 log described with its NVLink domain"; fails=$((fails + 1))
fi
if "$bin" validate --nccl-tests "$tmp/healthy.log" --instance p4d.24xlarge --nodes 2 | grep -q warning; then
  echo "FAIL: warning on a log that matches its instance"; fails=$((fails + 1))
fi
# A log without its NCCL version is predicted as the latest release, and validate says so.
expect 0 'warning: the log does not print its NCCL version: predicted as the latest modeled release' validate --nccl-tests "$tmp/a100.log" --instance dgx-a100
if "$bin" validate --nccl-tests "$tmp/a100.log" --instance dgx-a100 --nccl-version 2.23.4 | grep -q warning; then
  echo "FAIL: version warning although --nccl-version was given"; fails=$((fails + 1))
fi
# calibrate: parameters at their bounds are reported; one the logs cannot determine is refused.
expect 2 "cannot determine 'net_efficiency.efa_srd'" calibrate --nccl-tests "$tmp/a100.log" --instance dgx-a100 --params net_efficiency.efa_srd -o "$tmp/y.json"
expect 2 '5 parameters but only 4 measured sizes' calibrate --nccl-tests "$tmp/a100.log" --instance dgx-a100 -o "$tmp/z.json"
expect 0 'not determined by these logs' calibrate --nccl-tests "$tmp/healthy.log" --instance p4d.24xlarge --rounds 2 -o "$tmp/z.json"
# Per-run --nccl-version: '' keeps the version the log prints, a value overrides it (the same
# healthy log relabelled 2.9.9, where NCCL chooses ring up to 16 MiB and 2.30.7 chooses tree).
sed 's/NCCL version 2.23.4/NCCL version 2.9.9/' "$tmp/healthy.log" > "$tmp/v299.log"
for v in '' 2.9.9 2.30.7; do
  "$bin" calibrate --nccl-tests "$tmp/v299.log" --instance p4d.24xlarge --params net_efficiency.efa_srd --rounds 1 --nccl-version "$v" -o "$tmp/v_$v.json" > /dev/null
done
if ! cmp -s "$tmp/v_.json" "$tmp/v_2.9.9.json"; then
  echo "FAIL: calibrate --nccl-version '' did not keep the log's version"; fails=$((fails + 1))
fi
if cmp -s "$tmp/v_2.9.9.json" "$tmp/v_2.30.7.json"; then
  echo "FAIL: calibrate --nccl-version 2.30.7 did not override the log's version"; fails=$((fails + 1))
fi
cli_expect_finish "nccl CLI"
