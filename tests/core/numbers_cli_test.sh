#!/usr/bin/env bash
# Numbers are checked where they enter (docs/limits.md): every case here gave a
# wrong answer with exit 0, printed inf or NaN, or was silently dropped or ignored before.
# Usage: numbers_cli_test.sh path/to/topotune
set -u
source "$(dirname "$0")/../lib/cli_expect.sh"
cli_expect_init "$@"
cli_timeout=60
p4d=(--instance p4d.24xlarge --nodes 2)
log=$(dirname "$0")/../../fuzz/corpus/nccl_tests_parser_fuzz/dgx_a100_4n_ib_deepops_slurm.txt

# No NaN or inf in anything a command prints (a word "inf"/"nan", any case, signed or not).
no_nonfinite() {  # no_nonfinite ARGS...: runs "$bin" ARGS and fails if its output shows one
  local out
  out=$(timeout "$cli_timeout" "$bin" "$@" 2>&1)
  if grep -Eiq '(^|[^a-z_])[-+]?(inf|infinity|nan)([^a-z_]|$)' <<<"$out"; then
    echo "FAIL: topotune $* printed inf or nan:"
    grep -Ei '(^|[^a-z_])[-+]?(inf|infinity|nan)([^a-z_]|$)' <<<"$out" | head -5
    fails=$((fails + 1))
  fi
}

# Item 7: predict with NCCL's algorithms has the byte limits of every other command.
expect 2 "is more than the 1 TiB limit" predict "${p4d[@]}" --sizes 9223372036854775807
expect 2 "is more than the 1 TiB limit" predict "${p4d[@]}" --sizes 2T --algo nccl:ring
expect 2 "is not a multiple of the fp32 element size" predict "${p4d[@]}" --sizes 9
expect 0 "1099511627776" predict "${p4d[@]}" --sizes 1T

# Item 6: integer fields are JSON integers in range, in profiles and replays.
profile() {  # profile BATCH > file: a one-layer profile with measured times at BATCH
  printf '{"schema": "topotune.model_profile/1", "name": "m", "measured_batch_per_gpu": %s, ' "$1"
  printf '"layers": [{"name": "a", "backward_time_s": 0.01}], '
  printf '"params": [{"name": "w", "numel": 1000000, "layer": 0}]}\n'
}
for b in 4294967304 2147483648 1099511627776 true 1.5 0; do
  profile "$b" > "$tmp/m.json"
  expect 2 "'measured_batch_per_gpu' must be an integer in [1, 1048576], got $b" \
    plan "${p4d[@]}" --model "$tmp/m.json"
done
profile 8 > "$tmp/m.json"
expect 0 "recommend" plan "${p4d[@]}" --model "$tmp/m.json"
"$bin" plan "${p4d[@]}" --format json > "$tmp/p.json"
python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
base = json.load(open(tmp + "/p.json"))
def write(name, edit):
    d = json.loads(json.dumps(base))
    edit(d)
    json.dump(d, open(f"{tmp}/{name}.json", "w"))
for name, v in [("btrue", True), ("bfloat", 1.5), ("bwrap", 4294967304), ("b31", 2 ** 31)]:
    write(name, lambda d, v=v: d["inputs"]["compute"].__setitem__("batch_per_gpu", v))
write("caps", lambda d: d["inputs"].__setitem__("bucket_caps", [1e300]))
write("bytes", lambda d: d["recommendation"].__setitem__("bucket_bytes", 1e300))
write("eff", lambda d: d["inputs"]["compute"].__setitem__("efficiency", 5e-324))
write("peak", lambda d: d["inputs"]["compute"].__setitem__("peak_flops", 1e-320))
PY
expect 2 "batch_per_gpu must be an integer in [1, 1048576], got true" plan --replay "$tmp/btrue.json"
expect 2 "batch_per_gpu must be an integer in [1, 1048576], got 1.5" plan --replay "$tmp/bfloat.json"
expect 2 "got 4294967304" plan --replay "$tmp/bwrap.json"
expect 2 "got 2147483648" plan --replay "$tmp/b31.json"
expect 2 "bucket_caps must be an integer in [1, 1099511627776], got 1e+300" plan --replay "$tmp/caps.json"
expect 2 "bucket_bytes must be an integer in [1, 1099511627776], got 1e+300" plan --replay "$tmp/bytes.json"
expect 2 "compute efficiency must be in [0.001, 1]" plan --replay "$tmp/eff.json"
expect 2 "peak FLOP/s must be 0 or in [1e9, 1e17]" plan --replay "$tmp/peak.json"

# Item 8: denormal "in-range" values have a physical floor, so nothing turns inf or NaN.
cluster='{"schema": "topotune.cluster/1", "instance": "p4d.24xlarge", "nodes": 2, "link_params": {"network": {"efficiency": 5e-324}}}'
echo "$cluster" > "$tmp/c.json"
printf '{"schema": "topotune.nccl_model/2", "parameters": {}, "link_params": {"nvlink": {"efficiency": 5e-324}}}' > "$tmp/cal_link.json"
printf '{"schema": "topotune.nccl_model/2", "parameters": {"net_efficiency.efa_srd": 5e-324}}' > "$tmp/cal_net.json"
awk '!done && /^ +[0-9]+ +[0-9]+ +float/ {$6 = "5e-324"; done = 1} {print}' "$log" > "$tmp/t_denormal.txt"
need="must be in [0.001, 1]"
expect 2 "link_params.network.efficiency: $need" predict --cluster "$tmp/c.json" --sizes 1M
expect 2 "link_params.network.efficiency: $need" simulate --cluster "$tmp/c.json" --algo ring --size 1M
expect 2 "link_params.network.efficiency: $need" plan --cluster "$tmp/c.json" --backend mpi
expect 2 "link_params.nvlink.efficiency: $need" simulate "${p4d[@]}" --algo ring --size 1M --calibration "$tmp/cal_link.json"
expect 2 "'net_efficiency.efa_srd' must be in [0.001, 1], got 4.94066e-324" predict "${p4d[@]}" --calibration "$tmp/cal_net.json"
expect 2 "--compute-efficiency must be in [0.001, 1]" plan "${p4d[@]}" --compute-efficiency 1e-320
expect 2 "--peak-tflops must be 0 or in [0.001, 100000]" plan "${p4d[@]}" --peak-tflops 1e-320
expect 2 "bad time '5e-324' (must be at least 0.001 us)" validate --instance dgx-a100 --nccl-tests "$tmp/t_denormal.txt"
# Every command on the hostile values and at the edges: refused or finite, never inf/NaN.
for args in "predict --cluster $tmp/c.json" "simulate --cluster $tmp/c.json --algo ring --size 1M" \
  "plan --cluster $tmp/c.json --backend mpi" "topo --cluster $tmp/c.json" \
  "predict ${p4d[*]} --calibration $tmp/cal_net.json" "plan ${p4d[*]} --calibration $tmp/cal_link.json" \
  "plan ${p4d[*]} --compute-efficiency 1e-320" "plan ${p4d[*]} --peak-tflops 1e-320" \
  "plan ${p4d[*]} --compute-efficiency 0.001 --peak-tflops 0.001" \
  "plan ${p4d[*]} --model $tmp/m.json --batch-per-gpu 1048576" \
  "predict ${p4d[*]} --sizes 1T" "predict ${p4d[*]} --sizes 0,4,1T --format csv" \
  "predict ${p4d[*]} --sizes 512G --nccl-version 2.22.3 --nccl-algo ring --format json" \
  "validate --instance dgx-a100 --nccl-tests $tmp/t_denormal.txt" \
  "plan --replay $tmp/eff.json" "plan --replay $tmp/peak.json"; do
  # shellcheck disable=SC2086  # word splitting of the prepared command lines is intended
  no_nonfinite $args
done

# Item 12: nccl-tests rows and headers are read or refused with FILE:line, never skipped.
row() {  # row FIELD VALUE OUT: the log with field FIELD of its first float row set to VALUE
  awk -v f="$1" -v v="$2" '!done && /^ +[0-9]+ +[0-9]+ +float/ {$f = v; done = 1} {print}' "$log" > "$3"
}
for size in -8 0x10 8.5; do
  row 1 "$size" "$tmp/size.txt"
  expect 2 "size.txt:line" validate --instance dgx-a100 --nccl-tests "$tmp/size.txt"
  expect 2 "bad size '$size'" validate --instance dgx-a100 --nccl-tests "$tmp/size.txt"
done
row 6 0 "$tmp/time0.txt"
expect 2 "bad time '0' (must be at least 0.001 us)" validate --instance dgx-a100 --nccl-tests "$tmp/time0.txt"
for n in 0 -1 99999999999999999999; do
  sed "0,/nGpus [0-9]*/s//nGpus $n/" "$log" > "$tmp/ngpus.txt"
  expect 2 "nGpus: gpus_per_thread must be in [1, 1048576], got '$n'" \
    validate --instance dgx-a100 --nccl-tests "$tmp/ngpus.txt"
done
# One rule for TOPOTUNE_MEMORY_LIMIT_MB: refused by every command (plan ignored it).
for cmd in "plan ${p4d[*]}" "topo ${p4d[*]}" "predict ${p4d[*]} --sizes 1M" \
  "simulate ${p4d[*]} --algo ring --size 1M"; do
  # shellcheck disable=SC2086
  TOPOTUNE_MEMORY_LIMIT_MB=abc expect 2 "TOPOTUNE_MEMORY_LIMIT_MB='abc' is not a positive whole number of MiB" $cmd
done
# Integer flags past an int say so (CLI11 said "At Most 1 required but received 2").
expect 2 "'2147483648' is out of range (an integer flag holds -2147483648 to 2147483647)" \
  plan "${p4d[@]}" --batch-per-gpu 2147483648
expect 2 "'-99999999999' is out of range" schedule --algo ring --ranks -99999999999 --size 1M
if "$bin" measure --help >/dev/null 2>&1; then  # built with MPI
  expect 2 "'2147483648' is out of range" measure --iters 2147483648
  expect 2 "'nan' must be a finite number in [0.001, 1e+06]" measure --timeout nan
  expect 2 "--timeout" measure --timeout inf
  expect 2 "--ranks-per-node" measure --ranks-per-node 0
  expect 2 "--ranks-per-node" measure --ranks-per-node -1
fi
# calibrate --start keeps the start's link_params, checked: an invalid one is refused.
printf '{"schema": "topotune.nccl_model/2", "parameters": {}, "link_params": {"nvlink": {"latency_us": 0.7}}}' > "$tmp/start.json"
expect 2 "link_params.nvlink.efficiency: $need" \
  calibrate --nccl-tests "$log" --instance dgx-a100 --start "$tmp/cal_link.json" -o "$tmp/out.json"
if [ -e "$tmp/out.json" ]; then
  echo "FAIL: a refused --start wrote its output"
  fails=$((fails + 1))
fi
expect 0 "written to" calibrate --nccl-tests "$log" --instance dgx-a100 --start "$tmp/start.json" -o "$tmp/out.json"
if ! python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["link_params"] != {"nvlink": {"latency_us": 0.7}})' "$tmp/out.json"; then
  echo "FAIL: calibrate --start dropped the start's link_params"
  fails=$((fails + 1))
fi
cli_expect_finish "numbers CLI"
