#!/usr/bin/env bash
# clang-tidy with the checks of .clang-tidy (warnings are errors) on the build's compile
# commands (scripts/build.sh writes build/compile_commands.json). Files:
#  - default: a bounded set, core/, emulation/ and runtime/ (CUDA sources left out: they need
#    the CUDA toolchain's flags), plus every .cc a branch changed since it left main
#    (git merge-base HEAD main); the bounded set alone takes ~1 min on 2 cores;
#  - TIDY_ALL=1: every translation unit of the libraries and cli/ (~7.5 min on 2 cores);
#  - or the files given as arguments.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${BUILD_DIR:-$root/build}
if ! command -v run-clang-tidy >/dev/null 2>&1; then
  echo "check_tidy: clang-tidy is not installed (scripts/setup.sh --all installs it)" >&2
  exit 1
fi
if [ ! -f "$build/compile_commands.json" ]; then
  echo "check_tidy: $build/compile_commands.json missing: run scripts/build.sh first" >&2
  exit 1
fi
modules='core|topology|algorithms|simulator|runtime|timing|calibration|planning|emulation|cli|tuner_plugin'
if [ $# -gt 0 ]; then
  files=$(printf '%s\n' "$@")
elif [ "${TIDY_ALL:-0}" = 1 ]; then
  files=$(git ls-files '*.cc' | grep -E "^($modules)/")
else
  files=$(git ls-files 'core/*.cc' 'emulation/*.cc' 'runtime/*.cc')
  if base=$(git merge-base HEAD main 2>/dev/null) && [ "$base" != "$(git rev-parse HEAD)" ]; then
    files="$files"$'\n'$(git diff --name-only --diff-filter=AMR "$base" HEAD -- '*.cc' |
      grep -E "^($modules)/" || true)
  fi
fi
files=$(echo "$files" | grep -v '^runtime/nccl/' | grep -E '\.cc$' | sort -u)
count=$(echo "$files" | grep -c . || true)
pattern="^$root/($(echo "$files" | sed 's/[.]/\\./g' | paste -sd'|'))\$"
start=$SECONDS
if ! run-clang-tidy -p "$build" -j "${JOBS:-$(nproc)}" -quiet "$pattern" > "$build/clang-tidy.log" 2>&1; then
  sed 's/\x1b\[[0-9;]*m//g' "$build/clang-tidy.log" | grep -E '(warning|error): ' >&2 || true
  echo "check_tidy: findings above (full log: $build/clang-tidy.log)" >&2
  exit 1
fi
echo "check_tidy: $count files clean ($((SECONDS - start)) s)"
