#!/usr/bin/env bash
# A ZeRO-3/FSDP-style training loop on emulated clusters, predicted by `topotune plan
# --framework fsdp --backend mpi` (ctest label emulated; root only, skipped otherwise;
# docs/pytorch.md).
# Per cluster (EMU_CONFIGS, default 2 hosts x 2 ranks and 4 hosts x 1 rank at 200 Mbit/s, and
# 2 x 2 in two racks joined by a 70 Mbit/s uplink, slow enough that the predictions separate
# FSDP and HSDP by more than 20 %, so the ranking is checked there): `topotune emulate up`
# (prefix tts); per
# unit size (blocks per unit, SH_UNITS) the synthetic model's profile (sharded_model.py) and
# one plan, whose rows give the predicted step of every (strategy, prefetch); one gloo rank per
# process inside its host's namespace (sharded_sweep.py) measures the same configurations;
# `emulate down`. What the CPUs did meanwhile goes to cpu.json (tests/lib/cpu_share.sh), so that
# a bound missed while other work took the machine is reported as contention (exit 77), not
# passed or failed. Then sharded_check.py compares them.
# usage: emulated_sharded_test.sh TOPOTUNE_BINARY RESULTS_DIR
# env: EMU_CONFIGS, SH_UNITS (1,2), SH_ITERS (3)
set -u
bin=$(readlink -f "$1")
results=${2:-$(mktemp -d /tmp/tt-sharded.XXXXXX)}
mkdir -p "$results"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix=tts
configs=${EMU_CONFIGS:-"2x2@200mbit 4x1@200mbit 2x2@200mbit:2r70mbit"}
unit_sizes=${SH_UNITS:-1,2}
iters=${SH_ITERS:-3}
# shellcheck source=tests/lib/emulated_lib.sh
. "$root/tests/lib/emulated_lib.sh"
emulated_preflight

for u in ${unit_sizes//,/ }; do
  "$py" "$here/sharded_model.py" "$u" "$results/model-u$u.json" || { check no "profile u$u"; exit 1; }
done

for cfg in $configs; do
  emulated_up "$cfg" || continue
  for u in ${unit_sizes//,/ }; do
    "$bin" plan --cluster "$dir/cluster.json" --model "$results/model-u$u.json" \
      --framework fsdp --backend mpi --batch-per-gpu 1 --format json > "$dir/plan-u$u.json" \
      || check no "$cfg: plan u$u"
  done
  start=$(date +%s)
  cpu_mark "$dir/cpu-before"
  pids=()
  for r in $(seq 0 $((world - 1))); do
    ip netns exec ${prefix}h$((r / rpn)) env GLOO_SOCKET_IFNAME=eth0 MASTER_ADDR=198.18.0.1 \
      MASTER_PORT=29510 PYTHONPATH="$PYTHONPATH" timeout 300 "$py" "$here/sharded_sweep.py" \
      --rank "$r" --world "$world" --ranks-per-node "$rpn" --unit-sizes "$unit_sizes" \
      --iters "$iters" --out "$dir/measured.json" --trace "$dir/trace.json" > "$dir/rank$r.log" 2>&1 &
    pids+=($!)
  done
  rc=0
  for p in "${pids[@]}"; do wait "$p" || rc=$?; done
  cpu_mark "$dir/cpu-after"
  cpu_record "$dir/cpu-before" "$dir/cpu-after" "$dir/cpu.json"
  cat "$dir/rank0.log"
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  echo "$load" > "$dir/loadavg"
  echo "# $cfg measured in $(( $(date +%s) - start )) s; load average $load"
  [ $rc -eq 0 ] && check ok "$cfg: sharded sweep" || { check no "$cfg: sharded sweep (rc=$rc)"; tail -5 "$dir"/rank*.log; }
  "$bin" emulate down --prefix $prefix > /dev/null
done

"$py" "$here/sharded_check.py" "$results" $configs
check_rc=$?
echo "results in $results"
[ $failures -ne 0 ] && exit 1
# 77: every failed bound ran while other work took the CPUs (sharded_check.py says so):
# skipped, not passed; a model error on a quiet machine is a failure (1).
[ $check_rc -eq 77 ] && exit 77
[ $check_rc -ne 0 ] && exit 1
exit 0
