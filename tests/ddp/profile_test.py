#!/usr/bin/env python3
"""python3 -m topotune.profile end to end, read back by the built `topotune plan --model`.

1. torchvision:resnet50 (small images, so that it runs in seconds on a loaded CPU): the
   profile's parameter count and tensor list equal torchvision's; every layer has measured
   times; `topotune plan --model FILE` accepts it and plans with its parameter count.
2. tests/ddp/tiny_model.py:make (package.module:factory with example_input): the layers are
   the modules in forward order (not registration order), a tied weight belongs to its first
   use, a frozen parameter is "trainable": false, and a layer whose backward sleeps 50 ms is
   measured as the slowest.
usage: profile_test.py TOPOTUNE_BINARY (run with the python3 that has torch; PYTHONPATH=python)
"""
import json
import os
import subprocess
import sys
import tempfile

import torch
import torchvision

failures = 0


def check(ok, what):
    global failures
    print(f"{'PASS' if ok else 'FAIL'}: {what}")
    failures += not ok


def profile(args, out):
    cmd = [sys.executable, "-m", "topotune.profile", *args, "--out", out]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(os.path.abspath(__file__)) + os.pathsep + env["PYTHONPATH"]
    run = subprocess.run(cmd, capture_output=True, text=True, env=env)
    print(run.stdout.strip(), run.stderr.strip())
    check(run.returncode == 0, " ".join(cmd[1:]))
    with open(out) as f:
        return json.load(f)


def plan(topotune, model, batch):
    run = subprocess.run([topotune, "plan", "--instance", "p4d.24xlarge", "--nodes", "2",
                          "--model", model, "--batch-per-gpu", str(batch), "--format", "json"],
                         capture_output=True, text=True)
    check(run.returncode == 0, f"topotune plan --model {os.path.basename(model)}: "
                               f"{run.stderr.strip() or 'exit 0'}")
    return json.loads(run.stdout) if run.returncode == 0 else {}


def main():
    topotune = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="tt-profile-")
    r50 = os.path.join(tmp, "r50.json")
    p = profile(["torchvision:resnet50", "--batch", "2", "--device", "cpu", "--input-shape",
                 "3,64,64", "--steps", "2"], r50)
    ref = list(torchvision.models.resnet50().named_parameters())
    count = sum(t.numel() for _, t in ref)
    check(p["total_params"] == count == 25557032,
          f"resnet50: {p['total_params']} parameters = torchvision's {count}")
    check([e["name"] for e in p["params"]] == [n for n, _ in ref],
          "resnet50: parameters in registration order")
    check(all(l["backward_time_s"] >= 0 and l["forward_time_s"] >= 0 for l in p["layers"])
          and sum(l["backward_time_s"] for l in p["layers"]) > 0, "resnet50: measured times")
    got = plan(topotune, r50, 2)
    embedded = got.get("inputs", {}).get("model_profile", {})
    check(embedded.get("total_params") == count and got.get("model") == "resnet50",
          "plan reads the profile (model resnet50, its parameter count)")
    fwd = sum(l["forward_time_s"] for l in p["layers"])
    planned = got.get("recommendation", {}).get("forward_s", -1)
    check(abs(planned - fwd) <= 1e-4 * fwd + 1e-6,
          f"plan's forward time is the profile's: {planned:.6g} s = {fwd:.6g} s")

    tiny = os.path.join(tmp, "tiny.json")
    p = profile(["tiny_model:make", "--batch", "4", "--steps", "3"], tiny)
    layers = [l["name"] for l in p["layers"]]
    check(layers == ["second", "first", "slow", "head"], f"tiny: layers in forward order {layers}")
    by_name = {e["name"]: e for e in p["params"]}
    check([by_name[f"{m}.weight"]["layer"] for m in ("first", "second", "slow")] == [1, 0, 2],
          "tiny: each parameter's layer is its module's place in forward order")
    check(by_name["head.weight"]["layer"] == layers.index("head")
          and "tied.weight" not in by_name, "tiny: a tied weight is listed once")
    check(by_name["first.bias"].get("trainable") is False, "tiny: frozen bias is not trainable")
    slow = p["layers"][layers.index("slow")]["backward_time_s"]
    check(slow >= 0.045 and slow == max(l["backward_time_s"] for l in p["layers"]),
          f"tiny: the sleeping layer's backward is measured ({slow * 1e3:.1f} ms >= 45 ms)")
    plan(topotune, tiny, 4)

    # A --name that would be code in the files topotune emits is refused before profiling.
    for bad in ("evil\ntouch pwned #", "\x1b[31mred", 'a"b'):
        out = os.path.join(tmp, "named.json")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.path.dirname(os.path.abspath(__file__)) + os.pathsep + env["PYTHONPATH"]
        run = subprocess.run([sys.executable, "-m", "topotune.profile", "tiny_model:make",
                              "--batch", "2", "--name", bad, "--out", out],
                             capture_output=True, text=True, env=env)
        check(run.returncode == 2 and "profile name" in run.stderr
              and "\x1b" not in run.stderr and not os.path.exists(out),
              f"--name {bad!r} refused: {run.stderr.strip().splitlines()[-1:]}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
