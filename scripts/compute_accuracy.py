#!/usr/bin/env python3
"""How close the planner's compute time is to published training throughput.

For each row of data/compute_throughput.json (a GPU, a model, a precision, a batch, samples/s,
its source): the achieved efficiency = samples/s x 3 x forward FLOPs per sample (the
data/models profile's, plus the row's extra_forward_flops) / the catalog's peak for the
precision. The compute model (planning/compute_efficiency.h) is a roofline of two sequential
costs per training FLOP, the FLOP at peak and its memory traffic at the catalog's HBM
bandwidth: efficiency = 1 / (1 + bytes_per_flop x peak / bandwidth). A row's bytes_per_flop
is (1 / efficiency - 1) x bandwidth / peak; the fit per (family, precision) is the mean over
its 'fit' rows, rounded to 3 significant digits (amp-fp16 and amp-bf16 are one precision for
the fit: the same tensor rate). Then `topotune plan --instance I --nodes 1 --model M
--batch-per-gpu B --precision P --backend mpi --format json` times forward + backward on that
GPU (--backend mpi: no NCCL channel takes SMs from the compute, so the figures are the compute
alone), and each row's predicted samples/s is compared with the published one.

Fails (exit 1) when the plan's efficiency (inputs.compute.efficiency) differs from the
roofline of the fit here on that row's GPU (a constant of compute_efficiency.h that no longer
matches its fit), or when a fit row is off by more than 15 % (the acceptance). On a GPU whose
memory bandwidth the catalog does not know (UNKNOWN_BANDWIDTH_INSTANCE), the plan must use the
fit's roofline at the fit GPUs' own balance (peak FLOP per byte of bandwidth, the mean over
the fit rows of each precision, 3 significant digits): checked for every (family, precision). Held-out rows
are printed, not judged: they are what the fit is worth.

  python3 scripts/compute_accuracy.py [--topotune build/cli/topotune] [--markdown]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ACCEPT = 0.15
TOLERANCE = 1e-4  # relative: the plan prints 6 digits of an efficiency computed from the
#                  same rounded constant
UNKNOWN_BANDWIDTH_INSTANCE = "g5.48xlarge"  # A10G: no vendor memory bandwidth in the catalog
FAMILY_MODEL = {"convnet": "resnet50", "transformer": "bert-large"}
PRECISION_OF_KEY = {"amp": "amp-fp16", "tf32": "tf32", "fp32": "fp32"}


def load(path):
    with open(os.path.join(ROOT, path)) as f:
        return json.load(f)


def peak_tflops(instance, precision):
    gpu = load(f"data/instances/{instance}.json")["gpu"]
    key = {"fp32": "peak_fp32_TFLOPS", "tf32": "peak_tf32_TFLOPS"}.get(precision,
                                                                       "peak_fp16_TFLOPS")
    return gpu.get(key, {}).get("value")


def bandwidth_gbps(instance):
    return load(f"data/instances/{instance}.json")["gpu"]["memory_bandwidth_GBps"]["value"]


def sig3(x):
    return float(f"{x:.3g}")


def roofline(bytes_per_flop, row):
    """The model's efficiency on the row's GPU (compute_efficiency.h's formula)."""
    peak = peak_tflops(row["instance"], row["precision"]) * 1e12
    return 1 / (1 + bytes_per_flop * peak / (bandwidth_gbps(row["instance"]) * 1e9))


def model_info(name):
    m = load(f"data/models/{name}.json")
    return sum(layer.get("forward_flops", 0) for layer in m["layers"]), m.get("family")


def fit_key(family, precision):
    return family, "amp" if precision.startswith("amp-") else precision


def efficiency(row):
    flops, _ = model_info(row["model"])
    flops += row.get("extra_forward_flops", 0)
    return row["samples_per_s"] * 3 * flops / (peak_tflops(row["instance"], row["precision"]) * 1e12)


def bytes_per_flop(row):
    """The effective HBM bytes per training FLOP that explain this row's efficiency."""
    peak = peak_tflops(row["instance"], row["precision"]) * 1e12
    return (1 / efficiency(row) - 1) * bandwidth_gbps(row["instance"]) * 1e9 / peak


def plan(topotune, row):
    cmd = [topotune, "plan", "--instance", row["instance"], "--nodes", "1", "--model",
           row["model"], "--batch-per-gpu", str(row["batch"]), "--precision", row["precision"],
           "--backend", "mpi", "--format", "json"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {run.returncode}: {run.stderr.strip()}")
    return json.loads(run.stdout)


def unknown_bandwidth_problems(topotune, rows, fit):
    """The fallback on a GPU of unknown bandwidth: the fit at the fit GPUs' balance."""
    gpu = load(f"data/instances/{UNKNOWN_BANDWIDTH_INSTANCE}.json")["gpu"]
    if "value" in gpu.get("memory_bandwidth_GBps", {}):
        return [f"{UNKNOWN_BANDWIDTH_INSTANCE} now has a memory bandwidth: pick another GPU"]
    balance = {}
    for r in rows:
        if r["role"] == "fit":
            key = fit_key(None, r["precision"])[1]
            balance.setdefault(key, []).append(
                peak_tflops(r["instance"], r["precision"]) * 1e3 / bandwidth_gbps(r["instance"]))
    problems = []
    for (family, key), mu in sorted(fit.items()):
        ratio = sig3(statistics.mean(balance[key]))
        want = 1 / (1 + mu * ratio)
        cmd = [topotune, "plan", "--instance", UNKNOWN_BANDWIDTH_INSTANCE, "--nodes", "1",
               "--model", FAMILY_MODEL[family], "--precision", PRECISION_OF_KEY[key],
               "--peak-tflops", "100", "--batch-per-gpu", "8", "--backend", "mpi",
               "--format", "json"]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            problems.append(f"{' '.join(cmd)}: exit {run.returncode}: {run.stderr.strip()}")
            continue
        used = json.loads(run.stdout)["inputs"]["compute"]["efficiency"]
        if abs(used / want - 1) > TOLERANCE:
            problems.append(f"{family} {key} on a GPU of unknown bandwidth: the plan used "
                            f"efficiency {used}, the fit at the fit GPUs' balance ({ratio} "
                            f"FLOP/byte) gives {want:.6g}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--topotune", default=os.path.join(ROOT, "build", "cli", "topotune"))
    ap.add_argument("--markdown", action="store_true", help="print the docs table only")
    a = ap.parse_args()
    rows = load("data/compute_throughput.json")["rows"]
    fits = {}
    for r in rows:
        if r["role"] == "fit":
            fits.setdefault(fit_key(model_info(r["model"])[1], r["precision"]), []).append(
                bytes_per_flop(r))
    fit = {k: sig3(statistics.mean(v)) for k, v in fits.items()}
    problems, held_out = [], []
    lines = ["| GPU | model | precision | batch | published samples/s | efficiency | "
             "bytes/FLOP | role | model's efficiency | predicted samples/s | error |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        flops, family = model_info(r["model"])
        p = plan(a.topotune, r)
        used = p["inputs"]["compute"]["efficiency"]
        mu = fit.get(fit_key(family, r["precision"]))
        want = roofline(mu, r) if mu is not None else None
        if want is None or abs(used / want - 1) > TOLERANCE:
            problems.append(f"{r['gpu']} {r['model']} {r['precision']}: the plan used "
                            f"efficiency {used}, the fit here gives {want} "
                            f"({mu} bytes/FLOP)")
        rec = p["recommendation"]
        step = (rec["forward_s"] + rec["backward_s"]) * (flops + r.get("extra_forward_flops", 0)) / flops
        predicted = r["batch"] / step
        err = predicted / r["samples_per_s"] - 1
        if r["role"] == "fit" and abs(err) > ACCEPT:
            problems.append(f"{r['gpu']} {r['model']} {r['precision']}: fit row off by {err:+.1%}")
        if r["role"] == "held_out":
            held_out.append(abs(err))
        lines.append(f"| {r['gpu']} | {r['model']} | {r['precision']} | {r['batch']} | "
                     f"{r['samples_per_s']:g} | {efficiency(r):.3f} | "
                     f"{bytes_per_flop(r):.3g} | {r['role']} | {used:.3f} | "
                     f"{predicted:.0f} | {err:+.1%} |")
    problems += unknown_bandwidth_problems(a.topotune, rows, fit)
    print("\n".join(lines))
    if not a.markdown:
        print("\nfits (family, precision: bytes per training FLOP): " +
              ", ".join(f"{f} {p} {v}" for (f, p), v in sorted(fit.items())))
        print(f"held-out |error|: median {statistics.median(held_out):.1%}, "
              f"max {max(held_out):.1%} over {len(held_out)} rows")
    for msg in problems:
        print(f"FAIL: {msg}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
