#!/usr/bin/env bash
# Packs the gpu-labelled tests for a GPU machine that has CUDA and NCCL but not this project's
# build dependencies (Boost, CLI11, GoogleTest...): the stripped gpu_test binary built here,
# the CUDA runtime it was linked against, and a runner. NCCL is the target machine's own
# (libnccl.so.2 found under /usr, /opt or /lib there). Usage:
#   bash scripts/gpu_bundle.sh [DIR]          # default DIR: .gpu (ignored by git)
#   (on the GPU machine, in the same checkout)  bash DIR/run.sh   # writes DIR/gpu_test.log or $OUT
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/.gpu}
build=${BUILD_DIR:-$root/build}
test -x "$build/tests/gpu/gpu_test" || {
  echo "gpu_bundle: $build/tests/gpu/gpu_test not built (the GPU backend needs CUDA and NCCL" \
    "at configure time: docs/gpu.md)" >&2
  exit 1
}
mkdir -p "$dir/lib"
strip -o "$dir/gpu_test" "$build/tests/gpu/gpu_test"
cudart=$(ldd "$build/tests/gpu/gpu_test" | awk '/libcudart/ {print $3}')
[ -n "$cudart" ] && cp -L "$cudart" "$dir/lib/"
cat >"$dir/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs the bundled gpu tests and prints the figures (GPU_INFO / GPU_FIGURE lines).
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here}
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
nccl=$(find /usr /opt /lib -name 'libnccl.so.2*' 2>/dev/null | head -1)
echo "nccl library: ${nccl:-none found}"
export LD_LIBRARY_PATH="$here/lib:$(dirname "${nccl:-/}"):${LD_LIBRARY_PATH:-}"
timeout 420 "$here/gpu_test" >"$out/gpu_test.log" 2>&1
echo "gpu_test exit: $?"
grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/gpu_test.log"
grep -oE 'GPU_(FIGURE|INFO) \{.*\}' "$out/gpu_test.log"
RUN
chmod +x "$dir/run.sh"
echo "gpu_bundle: $dir ($(du -sh "$dir" | cut -f1)); on the GPU machine: bash $(basename "$dir")/run.sh"
