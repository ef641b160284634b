# Shared by the emulated PyTorch checks (emulated_ddp_test.sh, emulated_sharded_test.sh);
# sourced after they set `root`, `here`, `bin` and `prefix`.

failures=0
check() { if [ "$1" = ok ]; then echo "PASS: $2"; else echo "FAIL: $2"; failures=$((failures + 1)); fi; }

# Skips the test (exit 77) without root, network namespaces or a python3 with torch; sets `py`
# and PYTHONPATH, and takes the emulated cluster down on exit.
emulated_preflight() {
  if [ "$(id -u)" -ne 0 ]; then echo "SKIP: emulated clusters need root"; exit 77; fi
  if ! ip netns add "${prefix}probe" 2>/dev/null; then echo "SKIP: no network namespaces here"; exit 77; fi
  ip netns del "${prefix}probe"
  py=$("$root/scripts/torch_python.sh") || { echo "SKIP: no python3 with torch"; exit 77; }
  echo "python: $py; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  export PYTHONPATH="$root/python:$here"
  trap '"$bin" emulate down --prefix $prefix >/dev/null 2>&1' EXIT
}

# Brings up the cluster `cfg` (HxG@RATE, or HxG@RATE:KrUPLINK for K racks joined by uplinks of
# rate UPLINK) into "$results/c<cfg>"; sets nodes, rpn, world and dir. Returns 1 (after a FAIL
# line) when `emulate up` fails.
emulated_up() {
  local cfg=$1 racks=() base shape rate
  case $cfg in *:*r*) racks=(--racks "${cfg##*:}" --uplink "${cfg##*r}"); racks[1]=${racks[1]%%r*} ;; esac
  base=${cfg%%:*}
  shape=${base%@*}; rate=${base#*@}; nodes=${shape%x*}; rpn=${shape#*x}
  world=$((nodes * rpn))
  dir=$results/c$(echo "$cfg" | tr '@:' '--')
  "$bin" emulate down --prefix "$prefix" > /dev/null
  "$bin" emulate up --nodes "$nodes" --ranks-per-node "$rpn" --nic "$rate" "${racks[@]}" \
    --dir "$dir" --prefix "$prefix" > /dev/null || { check no "$cfg: emulate up"; return 1; }
}

# What the machine's CPUs did while a measured phase ran, so that time taken by other work is
# reported as contention, not as a model error. cpu_mark FILE records the moment: wall clock,
# /proc/stat's busy jiffies (user, nice, system, irq, softirq, steal) and the CPU time of this
# shell's finished children (bash's `times`, which must run in this shell, not a subshell:
# the ranks are its children once waited for). cpu_record BEFORE AFTER OUT writes the phase's
# cpu.json: wall seconds, CPUs, the busy CPU seconds, ours (the ranks and their kernel work in
# their context) and other work's, and other work's share of the machine's capacity.
cpu_mark() {
  local user nice system idle iowait irq softirq steal
  read -r _ user nice system idle iowait irq softirq steal _ < /proc/stat
  { date +%s.%N; echo $((user + nice + system + irq + softirq + steal)); } > "$1"
  times >> "$1"  # the shell's own line, then its children's (no pipe: a subshell has none)
}
cpu_record() {
  python3 - "$1" "$2" "$3" "$(getconf CLK_TCK)" "$(nproc)" <<'PY'
import json, re, sys
def read(path):
    wall, busy, _shell, kids = open(path).read().split("\n")[:4]
    secs = [int(m) * 60 + float(s) for m, s in re.findall(r"(\d+)m([\d.]+)s", kids)]
    return float(wall), int(busy), sum(secs)
(w0, b0, k0), (w1, b1, k1) = read(sys.argv[1]), read(sys.argv[2])
tck, cpus = int(sys.argv[4]), int(sys.argv[5])
wall, busy, ours = w1 - w0, (b1 - b0) / tck, k1 - k0
other = max(0.0, busy - ours)
json.dump({"wall_s": round(wall, 3), "cpus": cpus, "busy_cpu_s": round(busy, 3),
           "ours_cpu_s": round(ours, 3), "other_cpu_s": round(other, 3),
           "other_share": round(other / (wall * cpus), 4) if wall > 0 else 0.0},
          open(sys.argv[3], "w"))
PY
}
