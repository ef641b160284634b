#!/usr/bin/env python3
"""python/topotune is typed: mypy, with python/pyproject.toml's [tool.mypy] settings (strict),
finds no error in the package, checked against the PyTorch this interpreter imports.
usage: types_test.py CACHE_DIR (run with the python3 that has torch; exit 77 without mypy)"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    if subprocess.run([sys.executable, "-c", "import mypy"], capture_output=True).returncode:
        print(f"SKIP: {sys.executable} has no mypy (Debian package mypy)")
        return 77
    cache = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else None
    cmd = [sys.executable, "-m", "mypy"] + (["--cache-dir", cache] if cache else [])
    # From python/, so that mypy reads pyproject.toml's settings and the package it names.
    r = subprocess.run(cmd, cwd=os.path.join(ROOT, "python"), capture_output=True, text=True)
    print(r.stdout + r.stderr, end="")
    if r.returncode != 0 or "Success" not in r.stdout:
        print("FAIL: mypy found type errors in python/topotune")
        return 1
    print("PASS: mypy --strict: no type errors in python/topotune")
    return 0


if __name__ == "__main__":
    sys.exit(main())
