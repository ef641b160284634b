#!/usr/bin/env bash
# Real PyTorch DDP on emulated clusters, predicted by `topotune plan` (ctest label emulated;
# root only, skipped otherwise; docs/pytorch.md).
# 1. The synthetic BERT-large-shaped model (synthetic.py: real parameter shapes at hidden 128,
#    35 MB of gradients; a backward that sleeps, i.e. compute that leaves the CPU free) is
#    profiled with python3 -m topotune.profile.
# 2. Per cluster (EMU_CONFIGS, default 2 hosts x 2 ranks and 4 hosts x 1 rank at 200 Mbit/s):
#    `topotune emulate up`; for every bucket cap (1, 4, 25 MiB and the whole model) x {ring:
#    DDP's own gloo allreduce, hierarchical(ring): topotune.ddp_hooks}, `topotune plan
#    --cluster <its JSON> --model <profile> --backend mpi --dtype fp32 --algos F --buckets CAP`
#    predicts the step (the flow simulator times every candidate of so small a search); one
#    gloo rank per process runs inside each host's namespace (ddp_sweep.py, rendezvous over
#    the emulated network) and measures the same configurations; `emulate down`.
# 3. ddp_check.py: per cluster and algorithm, median |measured/predicted - 1| <= 10 %; the
#    configuration the plan ranks first is measured within 5 % of the measured fastest; the
#    ranking of the two algorithms is checked where the predictions separate them, and a
#    cluster where they do not is said so; the hook's parameters equal plain DDP's.
# usage: emulated_ddp_test.sh TOPOTUNE_BINARY RESULTS_DIR
# env: EMU_CONFIGS ("2x2@200mbit 4x1@200mbit 2x2@200mbit:2r100mbit": the last has its two
#      hosts in two racks joined by a 100 Mbit/s uplink), EMU_ITERS (3), DDP_CAPS (1,4,25 +
#      whole model)
set -u
bin=$(readlink -f "$1")
results=${2:-$(mktemp -d /tmp/tt-ddp.XXXXXX)}
mkdir -p "$results"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix=ttd
configs=${EMU_CONFIGS:-"2x2@200mbit 4x1@200mbit 2x2@200mbit:2r100mbit"}
iters=${EMU_ITERS:-3}
# shellcheck source=tests/lib/emulated_lib.sh
. "$root/tests/lib/emulated_lib.sh"
emulated_preflight

profile=$results/synthetic.json
"$py" -m topotune.profile synthetic:make --name synthetic-bert --batch 1 --steps 3 \
  --out "$profile" || { check no "profile the synthetic model"; exit 1; }
# The whole model in one bucket: the plan's grid point at or above the gradient bytes.
whole=$("$py" -c "import json,sys; b=json.load(open(sys.argv[1]))['total_params']*4; m=1
while m << 20 < b: m *= 2
print(m)" "$profile")
caps=${DDP_CAPS:-1,4,25,$whole}

for cfg in $configs; do
  emulated_up "$cfg" || continue
  # Predictions, one plan per (algorithm family, cap): every candidate is then simulated.
  for fam in ring hierarchical; do
    for cap in ${caps//,/ }; do
      "$bin" plan --cluster "$dir/cluster.json" --model "$profile" --batch-per-gpu 1 \
        --backend mpi --dtype fp32 --algos $fam --buckets "${cap}M" --format json \
        > "$dir/plan-$fam-$cap.json" || check no "$cfg: plan $fam $cap MiB"
    done
  done
  start=$(date +%s)
  cpu_mark "$dir/cpu-before"
  pids=()
  for r in $(seq 0 $((world - 1))); do
    ip netns exec ${prefix}h$((r / rpn)) env GLOO_SOCKET_IFNAME=eth0 MASTER_ADDR=198.18.0.1 \
      MASTER_PORT=29500 PYTHONPATH="$PYTHONPATH" timeout 600 "$py" "$here/ddp_sweep.py" \
      --rank "$r" --world "$world" --ranks-per-node "$rpn" --caps "$caps" --iters "$iters" \
      --out "$dir/measured.json" > "$dir/rank$r.log" 2>&1 &
    pids+=($!)
  done
  rc=0
  for p in "${pids[@]}"; do wait "$p" || rc=$?; done
  cpu_mark "$dir/cpu-after"
  cpu_record "$dir/cpu-before" "$dir/cpu-after" "$dir/cpu.json"
  cat "$dir/rank0.log"
  echo "# $cfg measured in $(( $(date +%s) - start )) s; load average $(cut -d' ' -f1-3 /proc/loadavg)"
  [ $rc -eq 0 ] && check ok "$cfg: DDP sweep" || { check no "$cfg: DDP sweep (rc=$rc)"; tail -5 "$dir"/rank*.log; }
  "$bin" emulate down --prefix $prefix > /dev/null
done

"$py" "$here/ddp_check.py" "$results" $configs
check_rc=$?
echo "results in $results"
[ $failures -ne 0 ] && exit 1
# 77: every failed bound ran while other work took the CPUs (ddp_check.py says so): skipped,
# not passed; a model error on a quiet machine is a failure (1).
[ $check_rc -eq 77 ] && exit 77
[ $check_rc -ne 0 ] && exit 1
exit 0
