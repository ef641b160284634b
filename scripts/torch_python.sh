#!/usr/bin/env bash
# Prints the path of a python3 that can import torch (and torchvision with --vision): $TOPOTUNE_PYTHON,
# then the python3 on PATH, then Debian's /usr/bin/python3 (python3-torch is importable only
# by the system interpreter; pyenv and the like shadow it on PATH). Exit 1 with a message
# naming what was tried when none can.
mods=torch
[ "${1:-}" = --vision ] && mods=torch,torchvision
tried=()
for py in "${TOPOTUNE_PYTHON:-}" "$(command -v python3 2>/dev/null)" /usr/bin/python3; do
  [ -n "$py" ] && [ -x "$py" ] || continue
  if "$py" -c "import $mods" 2>/dev/null; then echo "$py"; exit 0; fi
  tried+=("$py")
done
echo "no python3 with $mods found (tried: ${tried[*]:-none}); install python3-torch" \
  "python3-torchvision (scripts/setup.sh --all) or set TOPOTUNE_PYTHON" >&2
exit 1
