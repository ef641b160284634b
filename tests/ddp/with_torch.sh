#!/usr/bin/env bash
# Runs a python test with the python3 that has torch (scripts/torch_python.sh) and the
# checkout's python/ package on PYTHONPATH; exit 77 (ctest: skipped) when no interpreter has
# torch, saying so. usage: with_torch.sh [--vision] SCRIPT [ARGS...]
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
vision=()
[ "${1:-}" = --vision ] && { vision=(--vision); shift; }
py=$("$root/scripts/torch_python.sh" "${vision[@]}") || { echo "SKIP: no python3 with torch"; exit 77; }
echo "python: $py ($("$py" -c 'import torch; print("torch", torch.__version__)'))"
PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" exec "$py" "$@"
