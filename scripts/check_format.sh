#!/usr/bin/env bash
# Every C++ and CUDA source in the repository is formatted as .clang-format says (Google's
# style, 100 columns; ARCHITECTURE.md, "Building"). Fails listing the files that differ; fix them with
#   clang-format -i $(git ls-files '*.cc' '*.h' '*.cu')
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null 2>&1; then
  echo "check_format: clang-format is not installed (scripts/setup.sh --all installs it)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files '*.cc' '*.h' '*.cu' '*.cuh')
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "check_format: ${#bad[@]} of ${#files[@]} files are not formatted as .clang-format says:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files formatted"
