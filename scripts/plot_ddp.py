#!/usr/bin/env python3
"""plot_ddp.py OUT.png RESULTS_DIR CONFIG... : predicted against measured DDP steps (README).

RESULTS_DIR and CONFIG as for tests/ddp/ddp_check.py (the emulated DDP check's results, e.g.
build/emulated-ddp-results 2x2@200mbit 4x1@200mbit 2x2@200mbit:2r100mbit). One panel per
cluster: step time against DDP's bucket cap, measured medians as points with min-max bars
over the steps, predictions as dashed lines, one colour per algorithm. Uses gnuplot with the
data inline on its stdin; Python standard library only."""
import json
import os
import sys

from plot_panels import arguments, cluster_dir, load_check, multiplot, panel, render


def main():
    args = arguments(__doc__)
    if args is None:
        return 2
    out, results, configs = args
    check = load_check("ddp_check")
    script = multiplot(out, len(configs), 460) + [
        "set logscale x 2", "set xlabel 'bucket cap (MiB)'", "set ylabel 'step (s)'",
        "set key bottom right", "set grid", "set offsets graph 0.05, graph 0.05, 0, 0"]
    for cfg in configs:
        d = cluster_dir(results, cfg)
        with open(os.path.join(d, "measured.json")) as f:
            rows = json.load(f)["rows"]
        plots, blocks = [], []
        for j, algo in enumerate(("gloo", "hier")):
            mine = sorted((r for r in rows if r["algo"] == algo), key=lambda r: r["cap_mib"])
            lines = [f"{r['cap_mib']} {r['median_s']} {min(r['times_s'])} {max(r['times_s'])} "
                     f"{check.predicted(d, algo, r['cap_mib'])}" for r in mine]
            blocks += [lines, lines]
            name = check.LABEL[algo]
            plots.append(f"'-' using 1:2:3:4 with yerrorbars lc {j + 1} pt 7 title '{name} measured'")
            plots.append(f"'-' using 1:5 with linespoints lc {j + 1} dt 2 pt 1 title '{name} predicted'")
        script.append(f"set title '{cfg}'")
        panel(script, plots, blocks)
    return render(script, out)


if __name__ == "__main__":
    sys.exit(main())
