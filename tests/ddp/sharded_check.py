#!/usr/bin/env python3
"""sharded_check.py RESULTS_DIR CONFIG... : predicted against measured sharded steps
(emulated_sharded_test.sh).

For each CONFIG (RESULTS_DIR/c2x2-200mbit/ holds measured.json from sharded_sweep.py,
plan-u<blocks>.json from `topotune plan --framework fsdp --backend mpi` and loadavg), prints a
table of predicted and measured steps per (strategy, unit size, prefetch) and checks:
  * per configuration, the median over its steps of |measured/predicted - 1| <= 10 %;
  * the configuration the plan predicts fastest (among those measured; ties within 0.1 %
    pooled) is measured within 5 % of the measured fastest;
  * FSDP vs HSDP, only where the predictions separate them (best predicted steps > 20 %
    apart): the one predicted faster is measured faster; otherwise the check says so;
  * every rank's reduced gradient shard equals the sum over its group (relative error
    <= 1e-3: the gathered parameters are fp16).
Exit 1 if any check fails.

Contention, as ddp_check.py judges it: where the sweep's cpu.json says other work took more
than 15 % of the machine's CPU, the two timing bounds (median error, the plan's first) print
CONTENDED instead of FAIL when they miss; if those are the only misses the exit status is 77
(skipped, not passed). The ranking and the reduced shards are judged either way.
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cpu_contention import CONTENDED, contention, verdict  # noqa: E402

BOUND, PLAN_WITHIN, SEPARATE, TIE = 0.10, 0.05, 0.20, 0.001


def predicted(d, row):
    with open(os.path.join(d, f"plan-u{row['unit_blocks']}.json")) as f:
        plan = json.load(f)
    for c in plan["candidates"]:
        if (c["strategy"] == row["strategy"] and c["prefetch"] == row["prefetch"]
                and c["reshard_after_forward"] == row["reshard"] and not c["recompute"]):
            return c["step_time_s"]
    return None


def check_cluster(results, cfg, out):
    d = os.path.join(results, "c" + cfg.replace("@", "-").replace(":", "-"))
    with open(os.path.join(d, "measured.json")) as f:
        m = json.load(f)
    load = open(os.path.join(d, "loadavg")).read().strip()
    share, cpu_line = contention(os.path.join(d, "cpu.json"))
    contended = share > CONTENDED
    out.append(f"NOTE: {cfg}: {cpu_line}")
    rows = [dict(r, predicted_s=predicted(d, r)) for r in m["rows"]]
    ok, unjudged = True, False
    print(f"\n{cfg} ({m['world']} ranks, {m['ranks_per_node']} per host; load average {load}):")
    print("| strategy | blocks/unit | prefetch | predicted (s) | measured median (s) | steps (s) "
          "| median abs error |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        r["err"] = statistics.median(abs(t / r["predicted_s"] - 1) for t in r["times_s"])
        print(f"| {r['strategy']} | {r['unit_blocks']} | {r['prefetch']} | {r['predicted_s']:.3f} "
              f"| {r['median_s']:.3f} | " + " ".join(f"{t:.3f}" for t in r["times_s"])
              + f" | {100 * r['err']:.1f} % |")
    for r in rows:
        good = r["err"] <= BOUND
        ok &= good or contended
        unjudged |= not good and contended
        out.append(f"{verdict(good, contended)}: {cfg} {r['strategy']} unit {r['unit_blocks']} "
                   f"prefetch {r['prefetch']}: median |step error| {100 * r['err']:.1f} % "
                   f"(<= {100 * BOUND:.0f} %)")
    fastest = min(rows, key=lambda r: r["median_s"])
    first = min(rows, key=lambda r: r["predicted_s"])
    tied = [r for r in rows if abs(r["predicted_s"] / first["predicted_s"] - 1) <= TIE]
    first_median = statistics.median(t for r in tied for t in r["times_s"])
    over = first_median / fastest["median_s"] - 1
    good = over <= PLAN_WITHIN
    ok &= good or contended
    unjudged |= not good and contended
    out.append(f"{verdict(good, contended)}: {cfg}: the plan's first, {first['strategy']} unit "
               f"{first['unit_blocks']} prefetch {first['prefetch']}"
               + (f" (tied with {len(tied) - 1} more, steps pooled)" if len(tied) > 1 else "")
               + f", measured {100 * over:.1f} % over the fastest ({fastest['strategy']} unit "
               f"{fastest['unit_blocks']} prefetch {fastest['prefetch']}; "
               f"<= {100 * PLAN_WITHIN:.0f} %)")
    best = {s: min(r["predicted_s"] for r in rows if r["strategy"] == s) for s in ("fsdp", "hsdp")}
    fast, slow = sorted(best, key=best.get)
    gap = best[slow] / best[fast] - 1
    if gap > SEPARATE:
        meas = {s: min(r["median_s"] for r in rows if r["strategy"] == s) for s in best}
        good = meas[fast] < meas[slow]
        ok &= good
        out.append(f"{'PASS' if good else 'FAIL'}: {cfg}: ranking: {fast} predicted "
                   f"{100 * gap:.0f} % faster than {slow}; measured best {meas[fast]:.3f} s vs "
                   f"{meas[slow]:.3f} s")
    else:
        out.append(f"NOTE: {cfg} does not separate fsdp and hsdp: best predicted steps differ "
                   f"by {100 * gap:.1f} % (<= {100 * SEPARATE:.0f} %); no ranking check")
    worst = max(r["reduced_rel_err"] for r in rows)
    good = worst <= 1e-3
    ok &= good
    out.append(f"{'PASS' if good else 'FAIL'}: {cfg}: reduced gradient shards = the group's "
               f"sum: max relative error {worst:.2g} (<= 1e-3)")
    return ok, unjudged


def main():
    results, configs = sys.argv[1], sys.argv[2:]
    out, ok, unjudged = [], True, False
    for cfg in configs:
        try:
            good, skipped = check_cluster(results, cfg, out)
        except (OSError, KeyError, IndexError, TypeError, ValueError, ZeroDivisionError) as e:
            good, skipped = False, False
            out.append(f"FAIL: {cfg}: no results ({type(e).__name__}: {e})")
        ok &= good
        unjudged |= skipped
    if ok and unjudged:
        out.append("SKIP: a timing bound was missed while other work took the CPUs (CONTENDED "
                   "above): not judged; rerun on a quiet machine")
    print("\n" + "\n".join(out))
    return (77 if unjudged else 0) if ok else 1


if __name__ == "__main__":
    sys.exit(main())
