# Sourced by the emulated PyTorch checks (tests/lib/emulated_lib.sh).
# What the machine's CPUs did while a measured phase ran, so that time taken by other work is
# reported as contention, not as a model error. cpu_mark FILE records the moment: wall clock,
# /proc/stat's busy jiffies (user, nice, system, irq, softirq, steal) and the CPU time of this
# shell's finished children (bash's `times`, which must run in this shell, not a subshell:
# the ranks are its children once waited for). Only for ranks this shell starts and waits for:
# processes mpirun daemonizes (emulated_cluster's `emulate run`) are not its children, and
# their CPU would read as other work: there the ranks' own sum is given instead (`topotune
# measure` records it as ranks_cpu_s). cpu_record BEFORE AFTER OUT [OURS_CPU_S] writes the
# phase's cpu.json: wall seconds, CPUs, the busy CPU seconds, ours (the ranks and their kernel
# work in their context) and other work's, and other work's share of the machine's capacity.
cpu_mark() {
  local user nice system idle iowait irq softirq steal
  read -r _ user nice system idle iowait irq softirq steal _ < /proc/stat
  { date +%s.%N; echo $((user + nice + system + irq + softirq + steal)); } > "$1"
  times >> "$1"  # the shell's own line, then its children's (no pipe: a subshell has none)
}
cpu_record() {
  python3 - "$1" "$2" "$3" "$(getconf CLK_TCK)" "$(nproc)" "${4:-}" <<'PY'
import json, re, sys
def read(path):
    wall, busy, _shell, kids = open(path).read().split("\n")[:4]
    secs = [int(m) * 60 + float(s) for m, s in re.findall(r"(\d+)m([\d.]+)s", kids)]
    return float(wall), int(busy), sum(secs)
(w0, b0, k0), (w1, b1, k1) = read(sys.argv[1]), read(sys.argv[2])
tck, cpus = int(sys.argv[4]), int(sys.argv[5])
wall, busy, ours = w1 - w0, (b1 - b0) / tck, k1 - k0
if sys.argv[6]:  # the ranks' own CPU seconds, when they are not this shell's children
    ours = float(sys.argv[6])
other = max(0.0, busy - ours)
json.dump({"wall_s": round(wall, 3), "cpus": cpus, "busy_cpu_s": round(busy, 3),
           "ours_cpu_s": round(ours, 3), "other_cpu_s": round(other, 3),
           "other_share": round(other / (wall * cpus), 4) if wall > 0 else 0.0},
          open(sys.argv[3], "w"))
PY
}
