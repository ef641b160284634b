#!/usr/bin/env python3
"""plan_first.py TOPOTUNE CLUSTER_JSON SIZES OUT_DIR [--min-bytes 16777216]

What `topotune plan` ranks first on an emulated cluster, per size: for each size >= --min-bytes
in SIZES (a comma list such as 1M,16M,64M), a model profile with one fp32 gradient tensor of
that size and no compute (so a training step is exactly one allreduce of it) is planned with
`plan --cluster CLUSTER_JSON --dtype fp32 --backend mpi` (no NCCL: every candidate is one of
topotune's schedules, as `measure` runs them), and the recommendation's algorithm is recorded. Prints a JSON object
{"<bytes>": {"plan": NAME, "measure": NAME}, ...}: NAME as plan prints it (e.g.
"hierarchical(ring)"), which `topotune measure --algos` accepts as is (one name grammar for
every command, docs/algorithms.md): nothing here maps or copies names. The profiles and plans
are left in OUT_DIR for inspection. Python standard library only."""
import argparse
import json
import os
import subprocess
import sys

UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_size(text):
    unit = text[-1].upper() if text[-1].isalpha() else ""
    return int(text[: len(text) - len(unit)]) * UNITS[unit]


def one_tensor_profile(size):
    numel = size // 4
    return {
        "schema": "topotune.model_profile/1",
        "name": f"one-tensor-{size}",
        "description": "one fp32 gradient tensor, no compute: a step is one allreduce",
        "source": "tests/runtime/plan_first.py",
        "input": "none",
        "flops_convention": "none",
        "total_params": numel,
        "measured_batch_per_gpu": 1,
        "layers": [{"name": "only", "forward_flops": 0}],
        "params": [{"name": "only.weight", "numel": numel, "layer": 0}],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("topotune")
    ap.add_argument("cluster")
    ap.add_argument("sizes")
    ap.add_argument("out_dir")
    ap.add_argument("--min-bytes", type=int, default=16 << 20)
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    first = {}
    for size in sorted({parse_size(s) for s in a.sizes.split(",") if s}):
        if size < a.min_bytes:
            continue
        model = os.path.join(a.out_dir, f"one-tensor-{size}.json")
        with open(model, "w") as f:
            json.dump(one_tensor_profile(size), f)
        cmd = [a.topotune, "plan", "--cluster", a.cluster, "--model", model, "--dtype", "fp32",
               "--backend", "mpi", "--format", "json"]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            print(f"plan_first.py: {' '.join(cmd)} failed: {run.stderr.strip()}", file=sys.stderr)
            return 1
        with open(os.path.join(a.out_dir, f"plan-{size}.json"), "w") as f:
            f.write(run.stdout)
        label = json.loads(run.stdout)["recommendation"]["algorithm"]
        first[str(size)] = {"plan": label, "measure": label}
    print(json.dumps(first, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
