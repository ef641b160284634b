# Shared by the emulated PyTorch checks (emulated_ddp_test.sh, emulated_sharded_test.sh);
# sourced after they set `root`, `here`, `bin` and `prefix`.

# shellcheck source=tests/lib/cpu_share.sh
. "$root/tests/lib/cpu_share.sh"

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
