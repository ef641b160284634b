#!/usr/bin/env python3
"""Golden-output tests for `topotune plan`: runs each case and compares its JSON with the
checked-in file tests/golden/<case>.json, then replays that file (`plan --replay`) and checks
the replay prints the same plan.

  golden.py --topotune BIN CASE            compare one case (what ctest runs)
  golden.py --topotune BIN --all           compare every case
  golden.py --topotune BIN --all --update-golden   rewrite the files (also TOPOTUNE_UPDATE_GOLDEN=1)
"""

import argparse
import difflib
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

CASES = {
    "p4d-4-bert-large": ["--instance", "p4d.24xlarge", "--nodes", "4"],
    "p5-16-gpt2-xl": ["--instance", "p5.48xlarge", "--nodes", "16", "--model", "gpt2-xl"],
    "g5-8-resnet50-partition": ["--instance", "g5.48xlarge", "--nodes", "8", "--placement",
                                "partition", "--model", "resnet50", "--batch-per-gpu", "64",
                                "--peak-tflops", "70"],  # A10G: no published peak
    "p4de-2-vit-l16-fp32": ["--instance", "p4de.24xlarge", "--nodes", "2", "--model", "vit-l16",
                            "--dtype", "fp32"],
}


def run(topotune, args):
    p = subprocess.run([topotune, "plan", *args, "--format", "json"], capture_output=True,
                       text=True, check=False)
    if p.returncode != 0:
        raise SystemExit(f"topotune plan {' '.join(args)} failed ({p.returncode}): {p.stderr}")
    return p.stdout


def check(topotune, case, update):
    path = os.path.join(HERE, case + ".json")
    out = run(topotune, CASES[case])
    if update:
        with open(path, "w", encoding="utf-8") as f:
            f.write(out)
        print(f"updated {path}")
        return True
    with open(path, encoding="utf-8") as f:
        want = f.read()
    ok = out == want
    if not ok:
        diff = difflib.unified_diff(want.splitlines(), out.splitlines(), path, "topotune", lineterm="")
        print("\n".join(list(diff)[:60]))
        print(f"{case}: output differs from {path}; if intended, rerun with --update-golden")
    replay = run(topotune, ["--replay", path])
    if replay != want:
        print(f"{case}: `plan --replay {path}` differs from the stored plan")
        ok = False
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topotune", required=True)
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--update-golden", action="store_true")
    ap.add_argument("case", nargs="?")
    a = ap.parse_args()
    update = a.update_golden or os.environ.get("TOPOTUNE_UPDATE_GOLDEN") == "1"
    cases = sorted(CASES) if a.all else [a.case]
    if None in cases or any(c not in CASES for c in cases):
        ap.error(f"give --all or one of {sorted(CASES)}")
    ok = all([check(a.topotune, c, update) for c in cases])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
