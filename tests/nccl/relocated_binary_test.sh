#!/usr/bin/env bash
# The NCCL model's parameters have one source, data/nccl_model.json, compiled into the binary:
# a copy of the binary outside the source tree predicts exactly what it predicts in place, and
# no data file on disk (here a doctored one offered through TOPOTUNE_DATA_DIR, which earlier
# builds read at run time) changes its answer. Only --calibration overrides the built-in fit.
# Usage: relocated_binary_test.sh path/to/topotune path/to/data/nccl_model.json
set -u
bin=$1
model=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
mkdir -p "$tmp/bin" "$tmp/data"
cp "$bin" "$tmp/bin/topotune"
# The doctored file: every fitted efficiency halved (still inside its bounds).
python3 - "$model" "$tmp/data/nccl_model.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for name, entry in m["parameters"].items():
    if name.endswith("efficiency") or name.startswith("net_efficiency."):
        entry["value"] = max(0.31, entry["value"] / 2)
json.dump(m, open(sys.argv[2], "w"), indent=2)
PY
run_both() {  # run_both ARGS...: in place vs copied away with the doctored data dir
  local here there
  here=$("$bin" "$@" 2>&1) || { echo "FAIL: in place: topotune $*"; fails=$((fails + 1)); }
  there=$(cd "$tmp" && env TOPOTUNE_DATA_DIR="$tmp/data" "$tmp/bin/topotune" "$@" 2>&1) ||
    { echo "FAIL: copied away: topotune $*"; fails=$((fails + 1)); }
  if [ "$here" != "$there" ]; then
    echo "FAIL: the copied binary predicts differently: topotune $*"
    diff <(echo "$here") <(echo "$there") | head -10
    fails=$((fails + 1))
  fi
}
run_both predict --instance p4d.24xlarge --nodes 2 --sizes 1M,64M,1G --format json
run_both predict --instance p5.48xlarge --nodes 4 --sizes 4M,256M --explain
run_both plan --instance p4d.24xlarge --nodes 2 --format json
# --calibration is still the way to override the built-in fit: the doctored file changes it.
base=$("$bin" predict --instance p4d.24xlarge --nodes 2 --sizes 1G --format json)
over=$("$bin" predict --instance p4d.24xlarge --nodes 2 --sizes 1G --format json \
  --calibration "$tmp/data/nccl_model.json")
if [ "$base" == "$over" ]; then
  echo "FAIL: --calibration with halved efficiencies did not change the prediction"
  fails=$((fails + 1))
fi
[ "$fails" -eq 0 ] && echo "relocated binary: all checks passed"
exit "$fails"
