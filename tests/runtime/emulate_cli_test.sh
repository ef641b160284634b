#!/usr/bin/env bash
# `topotune emulate` without creating anything (label unit): the files `up --files-only`
# writes (cluster JSON figures derived from the shaped rates, hostfile, wrapper settings), and
# the clear refusal without root (run as an unprivileged user via setpriv when we are root).
# usage: emulate_cli_test.sh TOPOTUNE_BINARY
set -u
bin=$(readlink -f "$1")
work=$(mktemp -d /tmp/tt-emulate-cli.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
failures=0
check() { if [ "$1" = ok ]; then echo "PASS: $2"; else echo "FAIL: $2"; failures=$((failures + 1)); fi; }

"$bin" emulate up --files-only --nodes 4 --ranks-per-node 2 --nic 200mbit --racks 2 \
  --uplink 100mbit --dir "$work/c" > /dev/null && check ok "up --files-only" || check no "up --files-only"
python3 - "$work/c" <<'PY' && check ok "cluster JSON figures" || check no "cluster JSON figures"
import json, sys
d = sys.argv[1]
c = json.load(open(d + "/cluster.json"))
assert c["schema"] == "topotune.cluster/1" and c["nodes"] == 4 and c["placement"] == "partition"
inst = c["instance"]
assert inst["gpu"]["count"]["value"] == 2 and inst["network"]["nics"]["value"] == 1
# 200 Mbit/s x 1448/1514 (payload per frame) / (1 + 66/3028) (pure ACKs) = 187.19 Mbit/s.
want = 200e6 * 1448 / 1514 / (1 + 66 / 3028) / 1e9
assert abs(inst["network"]["nic_Gbps"]["value"] - want) < 1e-9, inst["network"]["nic_Gbps"]
# Racks of 2 hosts x 200 Mbit/s over a 100 Mbit/s uplink: 4:1.
assert c["fabric"] == {"hosts_per_rack": 2, "oversubscription": 4.0}, c["fabric"]
assert c["link_params"]["network"]["efficiency"] == 1.0
assert open(d + "/hostfile").read() == "tth0 slots=2\ntth1 slots=2\ntth2 slots=2\ntth3 slots=2\n"
w = open(d + "/mpirun.sh").read()
for needle in ("--bind-to none", "btl_tcp_flags send", "btl_tcp_sndbuf 262144", "-np 8",
               "plm_rsh_agent", "198.18.0.0/24", "ip netns exec ttl unshare --uts"):
    assert needle in w, needle
PY
"$bin" emulate up --files-only --nodes 3 --racks 2 --dir "$work/bad" > /dev/null 2> "$work/err"
[ $? -eq 2 ] && grep -q "multiple of --racks" "$work/err" && check ok "unequal racks refused" || check no "unequal racks"
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
  setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" emulate up --nodes 2 --dir "$work/u" \
    > /dev/null 2> "$work/err"
  rc=$?
  [ $rc -eq 2 ] && grep -q "topotune: error: emulated clusters need root" "$work/err" \
    && check ok "non-root: clear refusal, exit 2" || check no "non-root refusal (rc=$rc)"
fi
exit $failures
