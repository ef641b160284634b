#!/usr/bin/env bash
# Configures and builds topotune into ./build (or $BUILD_DIR). Extra arguments go to cmake.
# Environment: JOBS (default: the number of cores), BUILD_TARGET (default: everything).
# Incremental: a second run only rebuilds what changed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# ccache: paths under the checkout are hashed relative to it, so a fresh clone reuses the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
# -g puts the build directory into the hash unless told not to; the checkout path differs per clone.
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
build=${BUILD_DIR:-$root/build}
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
if [ ! -f "$build/CMakeCache.txt" ]; then
  # Warnings are errors from the first configure on: the README's plan command and the test
  # command then share one configuration, so a fresh clone compiles each object once (a
  # reconfigure that changes a compile flag would rebuild everything).
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTOPOTUNE_WERROR=ON "$@"
elif [ $# -gt 0 ]; then
  cmake -S "$root" -B "$build" "$@"
fi
# BUILD_TARGET: one target and what it needs (scripts/topotune builds only the CLI).
cmake --build "$build" --parallel "${JOBS:-$(nproc)}" ${BUILD_TARGET:+--target "$BUILD_TARGET"}
