#!/usr/bin/env python3
"""python/ is an installable package: a wheel builds offline from python/pyproject.toml (with the
interpreter's own setuptools and wheel, --no-build-isolation), holds every module, installs
into an empty folder, and the documented `python3 -m topotune.profile` runs from the
installation (an alias of topotune.profiler), as does `import topotune.ddp_hooks`.
usage: package_test.py (run with the python3 that has torch, pip, setuptools and wheel)"""
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(*cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        print(f"FAIL: {' '.join(cmd)}: {r.stdout[-2000:]}{r.stderr[-2000:]}")
        sys.exit(1)
    return r


def main():
    for mod in ("pip", "setuptools", "wheel"):
        if subprocess.run([sys.executable, "-c", f"import {mod}"]).returncode != 0:
            print(f"SKIP: {sys.executable} has no {mod}")
            return 77
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src")
        # A copy: setuptools writes build/ and *.egg-info next to the sources.
        shutil.copytree(os.path.join(ROOT, "python"), src,
                        ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PIP_NO_INDEX="1")
        env.pop("PYTHONPATH", None)
        run(sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-q",
            "-w", os.path.join(tmp, "dist"), src, env=env)
        wheels = os.listdir(os.path.join(tmp, "dist"))
        assert len(wheels) == 1 and wheels[0].startswith("topotune-0.1.0-"), wheels
        wheel = os.path.join(tmp, "dist", wheels[0])
        names = set(zipfile.ZipFile(wheel).namelist())
        for module in ("__init__", "ddp_hooks", "output_file", "profiler", "profile"):
            assert f"topotune/{module}.py" in names, (module, sorted(names))
        assert "topotune/py.typed" in names, sorted(names)  # PEP 561 marker
        site = os.path.join(tmp, "site")
        run(sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", site, wheel,
            env=env)
        env["PYTHONPATH"] = site
        out = run(sys.executable, "-m", "topotune.profile", "--help", env=env, cwd=tmp).stdout
        assert "topotune.profile MODEL" in out, out[:300]
        run(sys.executable, "-c", "import topotune.ddp_hooks, topotune.profiler as p; "
            "assert p.__file__.startswith(%r)" % site, env=env, cwd=tmp)
    print("PASS: wheel built offline, installed, `python3 -m topotune.profile --help` runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
