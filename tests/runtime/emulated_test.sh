#!/usr/bin/env bash
# End-to-end check on emulated clusters (ctest label emulated; root only, skipped otherwise).
# For each cluster: emulate up, ask `topotune plan --backend mpi` what it ranks first, measure
# ring/hierarchical/ps/mpi and the plan's choices with `topotune measure`, predict the same
# with predict_emulated (the flow simulator on the cluster's JSON, cross-checked against
# `topotune simulate --cluster`), compare (tests/runtime/emulated_check.py: median |error|
# <= 10 % per algorithm at sizes >= 16 MiB, Open MPI's MPI_Allreduce included; the predicted
# fastest and the plan's first choice measured within 5 % of the fastest); on hosts of several
# GPUs, reduce-scatter and allgather (ring, hierarchical) the same way; emulate down. Then: a
# rank killed mid-run in an emulated cluster ends the run with
# an error and no JSON; `emulate down` leaves no namespace, bridge, veth or qdisc behind, also
# from a half-removed state.
# usage: emulated_test.sh TOPOTUNE_BINARY RESULTS_DIR PREDICT_EMULATED_BINARY
# env: EMU_CONFIGS (default "2x2@200mbit 4x1@200mbit", 100mbit on a busy machine, see below),
#      EMU_SIZES (default 1M,4M,16M,32M,64M; 1M,4M,16M,24M,32M on a busy machine),
#      EMU_ITERS (3), EMU_ALGOS (ring,hierarchical,ps,mpi)
set -u
bin=$(readlink -f "$1")
results=${2:-$(mktemp -d /tmp/tt-emulated.XXXXXX)}
mkdir -p "$results"
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/cpu_share.sh
. "$here/../lib/cpu_share.sh"
prefix=tte
configs=${EMU_CONFIGS:-"2x2@200mbit 4x1@200mbit"}
sizes=${EMU_SIZES:-1M,4M,16M,32M,64M}
# Four busy-polling ranks on 2 cores shared with other work cannot keep 200 Mbit/s links busy
# (measured +30-45 % at a load average of 13, while 100 Mbit/s stayed within 1-7 %): on a busy
# machine the defaults drop to 100 Mbit/s and to sizes up to 32 MiB (same wall time), and say
# so. "Busy" is what other processes use now (3 s of /proc/stat), not the load average, which
# stays high for minutes after a build has finished. Three sizes >= 16 MiB, so that the median
# error the check asserts is not the mean of two points.
busy=$(python3 - <<'PY'
import time
def sample():
    v = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return v[3] + v[4], sum(v)   # idle + iowait, total
i0, t0 = sample(); time.sleep(3); i1, t1 = sample()
print(round(100 * (1 - (i1 - i0) / max(1, t1 - t0))))
PY
)
if [ -z "${EMU_CONFIGS:-}" ] && python3 -c "import sys; sys.exit(0 if $busy > 25 else 1)"; then
  configs="2x2@100mbit 4x1@100mbit"
  sizes=${EMU_SIZES:-1M,4M,16M,24M,32M}
  echo "NOTE: the CPUs are $busy % busy with other work: emulating at 100 Mbit/s, sizes $sizes"
else
  echo "CPUs busy with other work: $busy % (<= 25 %): emulating at ${configs##*@}, sizes $sizes"
fi
iters=${EMU_ITERS:-3}
algos=${EMU_ALGOS:-ring,hierarchical,ps,mpi}
failures=0 contended=0
check() { if [ "$1" = ok ]; then echo "PASS: $2"; else echo "FAIL: $2"; failures=$((failures + 1)); fi; }
# prediction_verdict RC WHAT: emulated_check.py's exit (0 within tolerance, 77 missed while
# other work took the CPUs, else failed) as a check on "WHAT prediction".
prediction_verdict() {
  case $1 in
    0) check ok "$2 prediction within tolerance" ;;
    77) echo "CONTENDED: $2 prediction missed while other work took the CPUs"
        contended=$((contended + 1)) ;;
    *) check no "$2 prediction within tolerance" ;;
  esac
}

if [ "$(id -u)" -ne 0 ]; then echo "SKIP: emulated clusters need root"; exit 77; fi
if ! ip netns add ${prefix}probe 2>/dev/null; then echo "SKIP: no network namespaces here"; exit 77; fi
ip netns del ${prefix}probe
subcommands=$("$bin" --help 2>&1)
has() { echo "$subcommands" | grep -qE "^ +$1( |$)"; }
if ! has emulate || ! has measure; then
  echo "SKIP: this topotune has no emulate/measure (built without MPI)"; exit 77
fi
trap '"$bin" emulate down --prefix $prefix >/dev/null 2>&1' EXIT
predictor=${3:-}
if [ ! -x "$predictor" ]; then
  echo "usage: emulated_test.sh TOPOTUNE_BINARY RESULTS_DIR PREDICT_EMULATED_BINARY" >&2; exit 2
fi

# cross_check CLUSTER_JSON PREDICTED_JSON: the predictor's rows at the largest size equal
# `topotune simulate --cluster` for every schedule algorithm (mpi has no CLI equivalent).
cross_check() {
  local cj=$1 pj=$2 a big=${sizes##*,} args
  for a in ${algos//,/ }; do
    [ "$a" = mpi ] && continue
    args=(--algo "$a")
    case $a in ps:*) args=(--algo ps --ps-placement "${a#ps:}") ;; esac
    "$bin" simulate --cluster "$cj" "${args[@]}" --size "$big" --format json > "$pj.$a.sim" || return 1
    python3 - "$pj" "$pj.$a.sim" "$a" <<'PY' || return 1
import json, sys
pred = json.load(open(sys.argv[1]))
sim = json.load(open(sys.argv[2]))
row = [r for r in pred["rows"] if r["algorithm"] == sys.argv[3] and r["bytes"] == sim["bytes"]][0]
assert abs(row["time_us"] - sim["time_s"] * 1e6) <= 1e-6 * row["time_us"], (row, sim["time_s"])
PY
  done
}

for cfg in $configs; do
  shape=${cfg%@*}; rate=${cfg#*@}; nodes=${shape%x*}; rpn=${shape#*x}
  dir=$results/c$shape-$rate
  "$bin" emulate down --prefix $prefix > /dev/null
  "$bin" emulate up --nodes "$nodes" --ranks-per-node "$rpn" --nic "$rate" --dir "$dir" --prefix $prefix \
    || { check no "$cfg: emulate up"; continue; }
  # What `topotune plan` ranks first for one allreduce of each size >= 16 MiB on this cluster
  # (schedules topotune runs; NCCL is not there): measured too, then checked against the
  # measured fastest.
  run_algos=$algos plan_check=()
  if python3 "$here/plan_first.py" "$bin" "$dir/cluster.json" "$sizes" "$dir/plan" \
      > "$dir/plan_first.json"; then
    plan_check=(--plan-first "$dir/plan_first.json")
    for a in $(python3 -c "import json,sys; print(' '.join(sorted({c['measure'] for c in json.load(open(sys.argv[1])).values()})))" "$dir/plan_first.json"); do
      case ",$run_algos," in *",$a,"*) ;; *) run_algos+=",$a" ;; esac
    done
    echo "# plan ranks first: $(cat "$dir/plan_first.json")"
  else
    check no "$cfg: topotune plan on the cluster"
  fi
  # A timing miss with every element right (emulated_check.py exit 3) is measured once more:
  # on this shared VM single runs of ps on 4x1 have come out 10-19 % slow with others within
  # 1 % (+0.2-0.5 s per size, like TCP retransmission timeouts of the 3:1 incast into one tbf
  # queue), and the next run within 1 %. Both attempts are printed; two misses fail.
  for attempt in 1 2; do
  start=$(date +%s)
  cpu_mark "$dir/cpu-before"
  timeout 500 "$bin" emulate run --dir "$dir" -- "$bin" measure --cluster "$dir/cluster.json" \
    --algos "$run_algos" --sizes "$sizes" --warmup 1 --iters "$iters" --timeout 60 --out "$dir/measured.json"
  rc=$?
  cpu_mark "$dir/cpu-after"
  echo "# $cfg measured in $(( $(date +%s) - start )) s (attempt $attempt)"
  [ $rc -eq 0 ] && check ok "$cfg: measure" || check no "$cfg: measure (rc=$rc)"
  verdict=0
  if [ -f "$dir/measured.json" ]; then
    # The ranks run under mpirun's daemons, not as this shell's children: their CPU is the sum
    # measure recorded (ranks_cpu_s), what the rest of the machine did is other work's.
    ours=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('ranks_cpu_s', ''))" \
      "$dir/measured.json")
    cpu_record "$dir/cpu-before" "$dir/cpu-after" "$dir/cpu.json" "$ours"
    if "$predictor" "$dir/cluster.json" "$run_algos" "$sizes" > "$dir/predicted.json"; then
      python3 "$here/emulated_check.py" "$dir/measured.json" "$dir/predicted.json" --name "$cfg" \
        --cpu "$dir/cpu.json" "${plan_check[@]}"
      verdict=$?
      if [ $verdict -eq 3 ] && [ $attempt -eq 1 ]; then
        echo "RETRY: $cfg: a timing check missed with every element right: measuring again"
        continue
      fi
      prediction_verdict $verdict "$cfg:"
      cross_check "$dir/cluster.json" "$dir/predicted.json" && check ok "$cfg: = topotune simulate --cluster" \
        || check no "$cfg: predictions differ from topotune simulate --cluster"
    else
      check no "$cfg: predict_emulated failed"
    fi
  fi
  break
  done
  # Reduce-scatter and allgather on hosts of several GPUs (where hierarchical differs from the
  # ring): ring, hierarchical and `mpi` (Open MPI's MPI_Reduce_scatter / MPI_Allgatherv, modelled
  # by what its coll/tuned picks: ring, and neighbor exchange for the allgather on 4 ranks;
  # then Bruck's, at the sizes it runs)
  # measured at the three largest sizes against their predictions, the same tolerances.
  if [ "$rpn" -gt 1 ]; then
    gsizes=$(echo "$sizes" | tr , '\n' | tail -3 | paste -sd, -)
    for coll in reduce_scatter allgather; do
      cpu_mark "$dir/cpu-before-$coll"
      timeout 300 "$bin" emulate run --dir "$dir" -- "$bin" measure --cluster "$dir/cluster.json" \
        --collective $coll --algos ring,hierarchical,mpi --sizes "$gsizes" --warmup 1 --iters "$iters" \
        --timeout 60 --out "$dir/measured-$coll.json" > "$dir/measure-$coll.out"
      rc=$?
      cpu_mark "$dir/cpu-after-$coll"
      [ $rc -eq 0 ] && check ok "$cfg: measure --collective $coll" \
        || check no "$cfg: measure --collective $coll (rc=$rc)"
      [ -f "$dir/measured-$coll.json" ] || continue
      ours=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('ranks_cpu_s', ''))" \
        "$dir/measured-$coll.json")
      cpu_record "$dir/cpu-before-$coll" "$dir/cpu-after-$coll" "$dir/cpu-$coll.json" "$ours"
      if "$predictor" "$dir/cluster.json" ring,hierarchical,mpi "$gsizes" 1 $coll \
          > "$dir/predicted-$coll.json"; then
        python3 "$here/emulated_check.py" "$dir/measured-$coll.json" "$dir/predicted-$coll.json" \
          --name "$cfg $coll" --cpu "$dir/cpu-$coll.json"
        prediction_verdict $? "$cfg: $coll"
      else
        check no "$cfg: predict_emulated $coll failed"
      fi
    done
    # Open MPI's Bruck allgather: what coll/tuned runs for MPI_Allgatherv on 3-7 ranks at
    # 16-256 KiB per rank (algorithms/open_mpi_decision.h), so the sizes are per-rank ones.
    if [ $((nodes * rpn)) -ge 3 ] && [ $((nodes * rpn)) -le 7 ]; then
      granks=$((nodes * rpn))
      bsizes="$((32 * granks))K,$((128 * granks))K"
      timeout 120 "$bin" emulate run --dir "$dir" -- "$bin" measure --cluster "$dir/cluster.json" \
        --collective allgather --algos mpi --sizes "$bsizes" --warmup 1 --iters "$iters" \
        --timeout 60 --out "$dir/measured-bruck.json" > "$dir/measure-bruck.out" \
        && check ok "$cfg: measure allgather (Bruck sizes)" \
        || check no "$cfg: measure allgather (Bruck sizes)"
      if [ -f "$dir/measured-bruck.json" ] && "$predictor" "$dir/cluster.json" mpi "$bsizes" 1 \
          allgather > "$dir/predicted-bruck.json"; then
        python3 "$here/emulated_check.py" "$dir/measured-bruck.json" "$dir/predicted-bruck.json" \
          --name "$cfg allgather (Bruck)" --min-bytes 0
        prediction_verdict $? "$cfg: Bruck allgather"
      else
        check no "$cfg: predict_emulated Bruck allgather failed"
      fi
    fi
  fi
  # A rank killed mid-run (last config only, it costs ~10 s): error, non-zero, no JSON.
  if [ "$cfg" = "${configs##* }" ]; then
    victim_ns=${prefix}h$((nodes - 1))
    "$bin" emulate run --dir "$dir" -- "$bin" measure --algos "${algos%%,*}" --sizes 16M --iters 1000 \
      --cluster "$dir/cluster.json" --timeout 30 --out "$dir/killed.json" > "$dir/kill.out" 2> "$dir/kill.err" &
    job=$!
    victim=""
    for _ in $(seq 1 40); do
      sleep 0.5
      for p in $(ip netns pids "$victim_ns" 2>/dev/null); do
        [ "$(ps -o comm= -p "$p" 2>/dev/null)" = topotune ] && victim=$p
      done
      [ -n "$victim" ] && break
    done
    if [ -n "$victim" ]; then
      sleep 2
      kill -9 "$victim"
      start=$(date +%s)
      wait $job; rc=$?
      took=$(( $(date +%s) - start ))
      [ $rc -ne 0 ] && [ $took -le 45 ] && check ok "kill in emulation: exit $rc after ${took}s" \
        || check no "kill in emulation: rc=$rc after ${took}s"
      grep -qE "topotune: error|exited on signal 9|process rank" "$dir/kill.err" && check ok "kill: clear error" \
        || { check no "kill: clear error"; tail -5 "$dir/kill.err"; }
      [ ! -e "$dir/killed.json" ] && check ok "kill: no JSON" || check no "kill: JSON written"
    else
      kill $job 2>/dev/null; wait $job
      check no "kill: no topotune process found in $victim_ns"
    fi
  fi
  "$bin" emulate down --prefix $prefix > /dev/null
done

# emulate down leaves nothing, also from a half-removed state (a crash mid-way).
"$bin" emulate up --nodes 2 --ranks-per-node 1 --nic 100mbit --racks 2 --uplink 50mbit \
  --dir "$results/cdown" --prefix $prefix > /dev/null || check no "two-tier emulate up"
ip netns del ${prefix}h1
ip netns exec ${prefix}h0 sleep 300 &   # a leftover process inside a namespace
sleeper=$!
"$bin" emulate down --prefix $prefix && check ok "emulate down from a broken state" || check no "emulate down"
wait $sleeper 2>/dev/null
"$bin" emulate down --prefix $prefix > /dev/null && check ok "emulate down is idempotent" || check no "second down"
[ -z "$(ip netns list | grep -E "^${prefix}(sw|l|h[0-9]+|probe)( |$)")" ] && check ok "no namespace left" || check no "namespaces left"
[ -z "$(ip -o link show | grep -E ' (br[0-9]+|spine|up[0-9]+[ab]|h[0-9]+p|lp)[:@]')" ] && check ok "no bridge or veth in the root namespace" \
  || check no "devices left in the root namespace"
[ -z "$(tc qdisc show | grep tbf)" ] && check ok "no tbf qdisc in the root namespace" || check no "qdisc left"

echo "results in $results"
[ $failures -ne 0 ] && exit 1
# 77: every miss was a timing check while other work took the CPUs: skipped, not passed.
[ $contended -ne 0 ] && { echo "SKIP: $contended cluster(s) CONTENDED: rerun on a quiet machine"; exit 77; }
exit 0
