#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: builds topotune with the GPU backend, runs every gpu-labelled
# test (ctest -L gpu) and prints a summary to paste into the catalog's measured figures: the
# device, driver, CUDA and NCCL versions, the commit, the command, and one JSON object per
# figure (see tests/gpu/gpu_figures_test.cc for what each one measures).
# Exit status: 0 when every gpu test passed on a visible GPU; 1 on a failure; 2 when no GPU was
# visible (the tests then skip, and there are no figures).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cd "$root"
BUILD_DIR="$build" bash scripts/build.sh -DTOPOTUNE_CUDA=ON >/dev/null || {
  echo "gpu_figures: build failed (run: BUILD_DIR=$build bash scripts/build.sh)" >&2
  exit 1
}
if ! grep -q '^TOPOTUNE_NCCL_LIBRARY:FILEPATH=/' "$build/CMakeCache.txt"; then
  echo "gpu_figures: this build has no GPU backend (CUDA or NCCL not found at configure time)" >&2
  exit 1
fi
log=$(mktemp)
ctest --test-dir "$build" -L gpu -V --output-on-failure >"$log" 2>&1
status=$?

echo "== topotune GPU figures"
echo "date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "command: BUILD_DIR=$build bash scripts/gpu_figures.sh   (ctest --test-dir $build -L gpu -V)"
if command -v nvidia-smi >/dev/null; then
  echo "device:  $(nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max --format=csv,noheader 2>/dev/null | head -n1)"
fi
echo "nvcc:    $(grep -m1 'CMAKE_CUDA_COMPILER_VERSION' "$build/CMakeFiles/"*/CMakeCUDACompiler.cmake 2>/dev/null | grep -oE '[0-9][0-9.]+' | head -n1)"
grep -m1 -oE 'GPU_INFO \{.*\}' "$log" | sed 's/^GPU_INFO /info:    /'
echo "tests:   $(grep -E 'tests passed|tests failed' "$log" | tail -n1)"
echo "== figures (JSON lines)"
grep -oE 'GPU_FIGURE \{.*\}' "$log" | sed 's/^GPU_FIGURE //'
if grep -q 'no CUDA device visible' "$log"; then
  echo "gpu_figures: no CUDA device visible; the gpu tests skipped:" >&2
  grep -m1 -o 'no CUDA device visible.*' "$log" >&2
  rm -f "$log"
  exit 2
fi
if [ $status -ne 0 ]; then
  echo "== failures"
  grep -E 'Failure|Expected|Which is|FAILED' "$log" | head -n 40
  echo "(full log: $log)"
  exit 1
fi
rm -f "$log"
