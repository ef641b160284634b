#!/usr/bin/env python3
"""emulated_check.py's verdicts on made-up runs: a timing miss on a quiet machine fails (3: only
timing, which emulated_test.sh measures once more), the same miss while other work took the
CPUs is CONTENDED (77, skipped), wrong elements fail even then (1), and a run within its bounds
passes (0). Standard library only."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MIB = 1 << 20


def rows(scale_ring=1.0, wrong=0):
    out = []
    for algo in ("ring", "rhd"):
        for size in (16 * MIB, 32 * MIB, 64 * MIB):
            t = size / 25e6 * 1e6 * (scale_ring if algo == "ring" else 1.0)
            out.append({"algorithm": algo, "bytes": size, "time_us": t,
                        "errors": wrong if (algo, size) == ("rhd", 16 * MIB) else 0})
    return {"rows": out}


def cpu(other_share):
    return {"wall_s": 100, "cpus": 2, "busy_cpu_s": 200, "ours_cpu_s": 200 - 200 * other_share,
            "other_cpu_s": 200 * other_share, "other_share": other_share}


def run(tmp, measured, cpu_record):
    paths = {}
    for name, content in (("m", measured), ("p", rows()), ("c", cpu_record)):
        paths[name] = os.path.join(tmp, name + ".json")
        with open(paths[name], "w") as f:
            json.dump(content, f)
    r = subprocess.run([sys.executable, os.path.join(HERE, "emulated_check.py"), paths["m"],
                        paths["p"], "--cpu", paths["c"]], capture_output=True, text=True)
    return r.returncode, r.stdout


def main():
    cases = [("within bounds", rows(), cpu(0.02), 0, "PASS: ring"),
             ("30 % slow, quiet machine", rows(1.3), cpu(0.02), 3, "FAIL: ring"),
             ("30 % slow, other work 40 %", rows(1.3), cpu(0.40), 77, "CONTENDED: ring"),
             ("wrong elements, other work 40 %", rows(1.0, wrong=5), cpu(0.40), 1,
              "FAIL: rhd 16777216 B: 5 wrong elements")]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, measured, record, want_rc, want_line in cases:
            rc, out = run(tmp, measured, record)
            good = rc == want_rc and want_line in out
            failed += not good
            print(f"{'PASS' if good else 'FAIL'}: {name}: exit {rc} (want {want_rc})"
                  + ("" if good else f"; output:\n{out}"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
