"""What scripts/plot_ddp.py and plot_sharded.py share: their command line (OUT.png
RESULTS_DIR CONFIG...), the emulated check module they take predictions from (loaded from
tests/ddp by path), each cluster's results directory, and a gnuplot multiplot of one panel per
cluster, written with the data inline on gnuplot's stdin. Python standard library only."""
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKS = os.path.join(HERE, "..", "tests", "ddp")


def arguments(doc):
    """(out, results, configs) from sys.argv, or None after printing `doc` (usage)."""
    if len(sys.argv) < 4:
        print(doc, file=sys.stderr)
        return None
    return sys.argv[1], sys.argv[2], sys.argv[3:]


def load_check(name):
    """tests/ddp/NAME.py as a module (the check whose predictions the plot draws)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(CHECKS, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def cluster_dir(results, cfg):
    """Where the check wrote cluster CFG's files (2x2@200mbit:2r70mbit -> c2x2-200mbit-2r70mbit)."""
    return os.path.join(results, "c" + cfg.replace("@", "-").replace(":", "-"))


def multiplot(out, panels, panel_width):
    """The script's first lines: a PNG of `panels` panels side by side."""
    return [f"set terminal pngcairo size {panel_width * panels},400 font ',10' noenhanced",
            f"set output '{out}'", f"set multiplot layout 1,{panels}"]


def panel(script, plots, blocks):
    """Appends one panel: its plot command, then each inline data block and its end mark."""
    script.append("plot " + ", ".join(plots))
    for b in blocks:
        script += b + ["e"]


def render(script, out):
    """Runs gnuplot on the script (ending the multiplot) and says what it wrote."""
    script.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True, check=True)
    print(f"wrote {out}")
    return 0
