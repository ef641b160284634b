#!/usr/bin/env python3
"""plot_sharded.py OUT.png RESULTS_DIR CONFIG... : predicted against measured sharded steps
(README).

RESULTS_DIR and CONFIG as for tests/ddp/sharded_check.py (the emulated sharded check's
results, e.g. build/emulated-sharded-results 2x2@200mbit 4x1@200mbit 2x2@200mbit:2r70mbit).
One panel per cluster: each configuration's measured median step (min-max bars over its steps)
against its predicted step, one colour per strategy, with the line measured = predicted and
the check's 10 % bound either side. Uses gnuplot with the data inline on its stdin; Python
standard library only."""
import json
import os
import sys

from plot_panels import arguments, cluster_dir, load_check, multiplot, panel, render


def main():
    args = arguments(__doc__)
    if args is None:
        return 2
    out, results, configs = args
    check = load_check("sharded_check")
    script = multiplot(out, len(configs), 420) + [
        "set xlabel 'predicted step (s)'", "set ylabel 'measured step (s)'",
        "set key bottom right", "set grid", "set size ratio -1"]
    for cfg in configs:
        d = cluster_dir(results, cfg)
        with open(os.path.join(d, "measured.json")) as f:
            rows = json.load(f)["rows"]
        for r in rows:
            r["predicted_s"] = check.predicted(d, r)
        values = [v for r in rows for v in [r["predicted_s"]] + r["times_s"]]
        lo, hi = 0.9 * min(values), 1.1 * max(values)
        script += [f"set title '{cfg}'", f"set xrange [{lo}:{hi}]", f"set yrange [{lo}:{hi}]"]
        plots = ["x lc 'black' title 'measured = predicted'",
                 "1.1*x lc 'gray' dt 2 title '+-10 %'", "0.9*x lc 'gray' dt 2 notitle"]
        blocks = []
        for j, strategy in enumerate(("fsdp", "hsdp")):
            mine = [r for r in rows if r["strategy"] == strategy]
            blocks.append([f"{r['predicted_s']} {r['median_s']} {min(r['times_s'])} "
                           f"{max(r['times_s'])}" for r in mine])
            plots.append(f"'-' using 1:2:3:4 with yerrorbars lc {j + 1} pt 7 title '{strategy}'")
        panel(script, plots, blocks)
    return render(script, out)


if __name__ == "__main__":
    sys.exit(main())
