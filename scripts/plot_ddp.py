#!/usr/bin/env python3
"""plot_ddp.py OUT.png RESULTS_DIR CONFIG... : predicted against measured DDP steps (README).

RESULTS_DIR and CONFIG as for tests/ddp/ddp_check.py (the emulated DDP check's results, e.g.
build/emulated-ddp-results 2x2@200mbit 4x1@200mbit 2x2@200mbit:2r100mbit). One panel per
cluster: step time against DDP's bucket cap, measured medians as points with min-max bars
over the steps, predictions as dashed lines, one colour per algorithm. Uses gnuplot with the
data inline on its stdin; Python standard library only."""
import importlib.util
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def ddp_check():
    spec = importlib.util.spec_from_file_location(
        "ddp_check", os.path.join(HERE, "..", "tests", "ddp", "ddp_check.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    out, results, configs = sys.argv[1], sys.argv[2], sys.argv[3:]
    check = ddp_check()
    script = [f"set terminal pngcairo size {460 * len(configs)},400 font ',10' noenhanced",
              f"set output '{out}'", f"set multiplot layout 1,{len(configs)}",
              "set logscale x 2", "set xlabel 'bucket cap (MiB)'", "set ylabel 'step (s)'",
              "set key bottom right", "set grid", "set offsets graph 0.05, graph 0.05, 0, 0"]
    for cfg in configs:
        d = os.path.join(results, "c" + cfg.replace("@", "-").replace(":", "-"))
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
        script.append("plot " + ", ".join(plots))
        for b in blocks:
            script += b + ["e"]
    script.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True, check=True)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
