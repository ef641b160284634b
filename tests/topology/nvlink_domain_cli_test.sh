#!/usr/bin/env bash
# `topo`, `predict`, `simulate` and `plan` on GB200 NVL72 racks (a multi-node NVLink domain of
# 18 hosts): one rack (18 hosts) and two racks (36 hosts), and what each says of the domain;
# `predict` and `plan` on the clouds' GB200 instances at 1, 18 and 36 hosts.
# Usage: nvlink_domain_cli_test.sh <path to topotune>
set -uo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
check() { if ! eval "$2"; then echo "FAIL: $1"; failures=$((failures + 1)); fi; }
run() {  # name, then the command's arguments; output in $tmp/<name>
  local name=$1; shift
  "$bin" "$@" >"$tmp/$name" 2>"$tmp/$name.err"
  local rc=$?
  check "'$*' exits 0 (got $rc: $(head -c 300 "$tmp/$name.err"))" "[ $rc -eq 0 ]"
}

for n in 18 36; do
  racks=$((n / 18))
  run topo$n topo --instance gb200-nvl72 --nodes $n
  check "topo x$n shows $((n * 4)) GPUs" "grep -q '^GPUs  *$((n * 4)) ' $tmp/topo$n"
  check "topo x$n shows $racks NVLink domain(s) of 18 nodes" \
    "grep -q '^multi-node NVL  $racks domain(s) of up to 18 nodes (72 GPUs)' $tmp/topo$n"
  run topojson$n topo --instance gb200-nvl72 --nodes $n --format json
  check "topo json x$n has the domains" \
    "grep -q '\"multi_node_nvlink\"' $tmp/topojson$n && grep -q '\"nvldomain$((racks - 1))\"' $tmp/topojson$n"

  # NCCL's view: one node per rack (MNNVL), all 72 GPUs of it on NVLink.
  run predict$n predict --instance gb200-nvl72 --nodes $n --sizes 1G --nccl-version 2.28.7 --explain
  check "predict x$n: $racks NCCL node(s) of all $((n * 4)) ranks" \
    "grep -q 'gb200-nvl72 x $racks node(s), cluster placement, $((n * 4)) ranks' $tmp/predict$n"
  # NVLS spans the rack: NVLS on one rack, NVLS-tree (NVLS in each rack, a tree between) on two.
  nvls=$([ $n -eq 18 ] && echo 'nvls     ' || echo 'nvls_tree')
  check "predict x$n times $nvls (not disabled)" "grep -Eq '^#     $nvls Simple +[0-9]' $tmp/predict$n"

  run sim$n simulate --instance gb200-nvl72 --nodes $n --algo ring --size 1G
  # The catalog leaves the GB200's peak FLOP/s unknown (sources disagree): the user gives one.
  run plan$n plan --instance gb200-nvl72 --nodes $n --peak-tflops 2250
  check "plan x$n names the cluster" "grep -q 'gb200-nvl72' $tmp/plan$n"
done

# One rack: a ring over NVLink alone is faster than over the NICs (each GPU's 900 GB/s against
# its NIC's 50 GB/s), so one rack's ring allreduce beats a rack's worth of separate hosts.
busbw() { grep -Eo 'busbw[^0-9]*[0-9.]+' "$1" | head -1 | grep -Eo '[0-9.]+$'; }
b18=$(busbw "$tmp/sim18"); b36=$(busbw "$tmp/sim36")
check "simulate reports busbw (x18 '$b18', x36 '$b36')" "[ -n '$b18' ] && [ -n '$b36' ]"
check "one rack's ring (busbw $b18) is faster than a NIC could carry (50 GB/s)" \
  "python3 -c 'import sys; sys.exit(0 if float(\"$b18\") > 100 else 1)'"
check "two racks' ring (busbw $b36) is slower than one rack's ($b18): it crosses the NICs" \
  "python3 -c 'import sys; sys.exit(0 if float(\"$b36\") < float(\"$b18\") else 1)'"

# A partial last domain: the topology and the simulator take it, NCCL's model says why not.
run sim20 simulate --instance gb200-nvl72 --nodes 20 --algo ring --size 64M
"$bin" predict --instance gb200-nvl72 --nodes 20 --sizes 1G >"$tmp/p20" 2>"$tmp/p20.err"
check "predict x20 refuses the partial domain (exit 2)" "[ $? -eq 2 ]"
check "predict x20 says why" "grep -q 'partial NVLink domain of 2' $tmp/p20.err"

# The clouds' GB200 NVL72 instances (4 GPUs per host, 18 hosts per domain): one host, one
# domain and two domains. NCCL's view counts one node per domain (MNNVL), all its ranks on it.
for inst in a4x-highgpu-4g Standard_ND128isr_NDR_GB200_v6 p6e-gb200.36xlarge; do
  for n in 1 18 36; do
    nodes=$(( n < 18 ? n : n / 18 ))
    run "$inst.predict$n" predict --instance "$inst" --nodes $n --sizes 1G --nccl-version 2.28.7
    check "predict $inst x$n: $nodes NCCL node(s) of $((n * 4)) ranks" \
      "grep -q '$inst x $nodes node(s), [a-z]* placement, $((n * 4)) ranks' '$tmp/$inst.predict$n'"
    run "$inst.plan$n" plan --instance "$inst" --nodes $n --peak-tflops 2250
    check "plan $inst x$n names the cluster" "grep -q '$inst' '$tmp/$inst.plan$n'"
  done
done

if [ $failures -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "nvlink_domain_cli: all checks passed"
