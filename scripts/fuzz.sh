#!/usr/bin/env bash
# Builds the libFuzzer targets with clang into ./build-fuzz and runs each for SECONDS (default
# 20). Seeds come from fuzz/corpus/<target>/ when present. Exits non-zero on any crash.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# ccache: paths under the checkout are hashed relative to it, so a fresh clone reuses the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
# -g puts the build directory into the hash unless told not to; the checkout path differs per clone.
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
seconds=${1:-20}
build=${BUILD_DIR:-$root/build-fuzz}
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTOPOTUNE_FUZZ=ON -DTOPOTUNE_BENCH=OFF -DTOPOTUNE_MPI=OFF -DTOPOTUNE_CUDA=OFF
fi
cmake -S "$root" -B "$build" >/dev/null   # refresh the target list
targets=$(grep -E '^[a-z_]+_fuzz$' "$build/fuzz_targets.txt" 2>/dev/null || true)
if [ -z "$targets" ]; then
  echo "fuzz: no fuzz targets defined"
  exit 0
fi
for t in $targets; do
  cmake --build "$build" --target "$t"
  corpus="$build/corpus/$t"
  mkdir -p "$corpus"
  seeds="$root/fuzz/corpus/$t"
  [ -d "$seeds" ] || seeds=""
  echo "fuzz: $t for ${seconds}s"
  "$build/fuzz/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 "$corpus" $seeds 2>&1 | tail -n 12
done
