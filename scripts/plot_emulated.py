#!/usr/bin/env python3
"""plot_emulated.py OUT.png NAME=MEASURED.json:PREDICTED.json [NAME=...]

Predicted-vs-measured plot of emulated-cluster runs (for README): one panel per cluster,
time per allreduce against size on log-log axes, measured medians as points with p10-p90
error bars, predictions as lines, one colour per algorithm. Uses gnuplot (the data goes
through a temporary directory); Python standard library only."""
import json
import os
import subprocess
import sys
import tempfile


def load(path):
    with open(path) as f:
        return {(r["algorithm"], int(r["bytes"])): r for r in json.load(f)["rows"]}


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    out, panels = sys.argv[1], []
    for arg in sys.argv[2:]:
        name, files = arg.split("=", 1)
        meas_path, pred_path = files.split(":", 1)
        panels.append((name, load(meas_path), load(pred_path)))
    tmp = tempfile.mkdtemp(prefix="tt-plot-")
    script = [f"set terminal pngcairo size {520 * len(panels)},420 font ',10'",
              f"set output '{out}'", f"set multiplot layout 1,{len(panels)}",
              "set logscale xy", "set xlabel 'size (MiB)'", "set ylabel 'time per allreduce (s)'",
              "set key top left", "set grid"]
    for i, (name, meas, pred) in enumerate(panels):
        algos = sorted({k[0] for k in meas if k in pred})
        plots = []
        for j, algo in enumerate(algos):
            data = os.path.join(tmp, f"p{i}_{j}.dat")
            with open(data, "w") as f:
                for k in sorted(k for k in meas if k[0] == algo and k in pred):
                    m, p = meas[k], pred[k]
                    f.write(f"{k[1] / 2**20} {m['time_us'] / 1e6} {m.get('time_us_p10', m['time_us']) / 1e6} "
                            f"{m.get('time_us_p90', m['time_us']) / 1e6} {p['time_us'] / 1e6}\n")
            plots.append(f"'{data}' using 1:2:3:4 with yerrorbars lc {j + 1} pt 7 title '{algo} measured'")
            plots.append(f"'{data}' using 1:5 with lines lc {j + 1} dt 2 title '{algo} predicted'")
        script.append(f"set title '{name}'")
        script.append("plot " + ", ".join(plots))
    script.append("unset multiplot")
    gp = os.path.join(tmp, "plot.gp")
    with open(gp, "w") as f:
        f.write("\n".join(script) + "\n")
    subprocess.run(["gnuplot", gp], check=True)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
