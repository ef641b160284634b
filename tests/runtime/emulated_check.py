#!/usr/bin/env python3
"""emulated_check.py MEASURED.json PREDICTED.json [--tolerance 0.10] [--mpi-tolerance 0.10]
                     [--min-bytes 16777216] [--rank-slack 0.05] [--plan-first FILE] [--name NAME]
                     [--cpu CPU.json]

Compares `topotune measure` (measurement schema) with predictions (measurement schema too:
rows of algorithm, bytes, time_us) for the same emulated cluster. Prints a markdown table of
predicted vs measured per algorithm and size, then checks, for sizes >= --min-bytes:
  * the median over sizes of |measured/predicted - 1| per algorithm is <= --tolerance
    (--mpi-tolerance for `mpi`, Open MPI's own MPI_Allreduce: the issue asks 10 % for it too;
    testbed.md suggests 15-20 % at 1 Gbit/s, where its local copy and reduce phases weigh
    more than at the 100-200 Mbit/s the CI check uses, where we measured 0.7-7.5 %);
  * at each size, the algorithm predicted fastest is measured fastest or within --rank-slack.
    Predictions within --tie (1 %) of the best are ties: a model cannot rank them, so the
    best-measured of the tied algorithms is the one checked.
  * with --plan-first (the JSON tests/runtime/plan_first.py writes: per size, the algorithm
    `topotune plan` ranks first and its measured name), at each of those sizes the plan's
    first choice is measured fastest or within --rank-slack of the fastest. Ties as above: the
    algorithms predicted within --tie of the plan's choice are ones the model cannot rank
    against it (on hosts of one GPU hierarchical(ring) is the flat ring transfer for transfer,
    and on the 4x1 cluster all four are predicted within 0.01 %), so the best-measured of them
    is the one checked: measurements of identically predicted algorithms were 5-9 % apart on
    4x1 at 200 Mbit/s in some runs, noise that a ranking check must not read as a wrong plan.
With --cpu (tests/lib/cpu_share.sh's record of the measured run, the ranks' own CPU from
measure's ranks_cpu_s), a timing check missed while other work took more than 15 % of the
machine's CPU prints CONTENDED instead of FAIL (tests/lib/cpu_contention.py); wrong elements
always fail.
Exit status 1 if an element is wrong or a run is missing, 3 if only a timing check was missed
(emulated_test.sh measures that cluster once more), 77 if every miss was CONTENDED. Python
standard library only."""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cpu_contention import CONTENDED, contention, verdict  # noqa: E402


def rows_by_key(path):
    with open(path) as f:
        m = json.load(f)
    return {(r["algorithm"], int(r["bytes"])): r for r in m["rows"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("measured")
    ap.add_argument("predicted")
    ap.add_argument("--tolerance", type=float, default=0.10)
    ap.add_argument("--mpi-tolerance", type=float, default=0.10)
    ap.add_argument("--min-bytes", type=int, default=16 << 20)
    ap.add_argument("--rank-slack", type=float, default=0.05)
    ap.add_argument("--tie", type=float, default=0.01)
    ap.add_argument("--plan-first", default="")
    ap.add_argument("--name", default="")
    ap.add_argument("--cpu", default="")
    a = ap.parse_args()
    with open(a.measured) as f:
        meas_collective = json.load(f).get("collective", "allreduce")
    with open(a.predicted) as f:
        pred_collective = json.load(f).get("collective", "allreduce")
    if meas_collective != pred_collective:
        print(f"FAIL: measured {meas_collective} but predicted {pred_collective}")
        return 1
    meas, pred = rows_by_key(a.measured), rows_by_key(a.predicted)
    keys = sorted(k for k in meas if k in pred)
    if not keys:
        print("no (algorithm, size) in both files", file=sys.stderr)
        return 1
    share, cpu_line = contention(a.cpu) if a.cpu else (0.0, "CPU: not recorded")
    contended = share > CONTENDED
    print(f"\n{a.name}\n\nNOTE: {cpu_line}\n")
    print("| algorithm | size | predicted (ms) | measured median (ms) | p10-p90 (ms) | meas/pred | #wrong |")
    print("|---|---|---|---|---|---|---|")
    for k in keys:
        m, p = meas[k], pred[k]
        ratio = m["time_us"] / p["time_us"]
        spread = f"{m.get('time_us_p10', 0) / 1e3:.1f}-{m.get('time_us_p90', 0) / 1e3:.1f}"
        print(f"| {k[0]} | {size_text(k[1])} | {p['time_us'] / 1e3:.1f} | {m['time_us'] / 1e3:.1f} "
              f"| {spread} | {ratio:.3f} | {m.get('errors', 0)} |")
    ok, timing_ok = True, True
    for k in keys:
        if meas[k].get("errors", 0):
            print(f"FAIL: {k[0]} {k[1]} B: {meas[k]['errors']} wrong elements")
            ok = False
    algos = sorted({k[0] for k in keys})
    for algo in algos:
        errs = [abs(meas[k]["time_us"] / pred[k]["time_us"] - 1) for k in keys
                if k[0] == algo and k[1] >= a.min_bytes]
        if not errs:
            continue
        tol = a.mpi_tolerance if algo == "mpi" else a.tolerance
        med = statistics.median(errs)
        timing_ok &= med <= tol
        print(f"{verdict(med <= tol, contended)}: {algo}: median |error| {med:.3f} for sizes "
              f">= {size_text(a.min_bytes)} (tolerance {tol:.2f})")
    for size in sorted({k[1] for k in keys if k[1] >= a.min_bytes}):
        here = [k for k in keys if k[1] == size]
        fastest = min(pred[k]["time_us"] for k in here)
        tied = [k for k in here if pred[k]["time_us"] <= fastest * (1 + a.tie)]
        best_pred = min(tied, key=lambda k: meas[k]["time_us"])
        best_meas = min(meas[k]["time_us"] for k in here)
        slack = meas[best_pred]["time_us"] / best_meas - 1
        timing_ok &= slack <= a.rank_slack
        names = "/".join(k[0] for k in tied)
        print(f"{verdict(slack <= a.rank_slack, contended)}: {size_text(size)}: predicted fastest "
              f"{names} is measured {slack * 100:.1f}% over the measured fastest "
              f"(slack {a.rank_slack * 100:.0f}%)")
    if a.plan_first:
        chosen, plan_ok = check_plan_first(a.plan_first, meas, pred, a.rank_slack, a.tie,
                                           contended)
        ok &= chosen
        timing_ok &= plan_ok
    if not ok:
        return 1
    if timing_ok:
        return 0
    if contended:
        print("SKIP: a timing check was missed while other work took the CPUs (CONTENDED "
              "above): not judged; rerun on a quiet machine")
        return 77
    return 3  # every element right, a timing check missed


def size_text(b):
    """A size as the tables print it: MiB from 1 MiB up, KiB below."""
    return f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB"


def check_plan_first(path, meas, pred, rank_slack, tie, contended):
    """(every plan choice was measured, every one within rank_slack of the measured fastest)."""
    with open(path) as f:
        first = json.load(f)
    if not first:
        print("FAIL: no plan choice to check")
        return False, True
    ok, timing_ok = True, True
    for key_text, choice in sorted(first.items(), key=lambda kv: int(kv[0])):
        size = int(key_text)
        key = (choice["measure"], size)
        here = [k for k in meas if k[1] == size and k in pred]
        if key not in here:
            print(f"FAIL: {size_text(size)}: plan's first choice {choice['plan']} was not measured")
            ok = False
            continue
        mine = pred[key]["time_us"]
        tied = [k for k in here if abs(pred[k]["time_us"] / mine - 1) <= tie]
        checked = min(meas[k]["time_us"] for k in tied)
        slack = checked / min(meas[k]["time_us"] for k in here) - 1
        timing_ok &= slack <= rank_slack
        others = "/".join(k[0] for k in tied if k != key)
        ties = f" (tied in prediction with {others}: the best-measured of them)" if others else ""
        print(f"{verdict(slack <= rank_slack, contended)}: {size_text(size)}: `topotune plan` ranks "
              f"{choice['plan']} first{ties}; measured {slack * 100:.1f}% over the measured "
              f"fastest (slack {rank_slack * 100:.0f}%)")
    return ok, timing_ok


if __name__ == "__main__":
    sys.exit(main())
