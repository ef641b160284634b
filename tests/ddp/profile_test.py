#!/usr/bin/env python3
"""python3 -m topotune.profile end to end, read back by the built `topotune plan --model`.

1. torchvision:resnet50 (small images, so that it runs in seconds on a loaded CPU): the
   profile's parameter count and tensor list equal torchvision's; every layer has measured
   times, the device (cpu) and per-layer FLOPs equal to the built-in profile's (at 224x224,
   layer by layer); `topotune plan
   --model FILE` refuses its CPU times (exit 2), plans with --timing flops from its FLOPs, and,
   with the device rewritten to cuda, plans with its measured times and parameter count.
2. tests/ddp/tiny_model.py:make (package.module:factory with example_input): the layers are
   the modules in forward order (not registration order), a tied weight belongs to its first
   use, a frozen parameter is "trainable": false, and a layer whose backward sleeps 50 ms is
   measured as the slowest.
3. --out is written as topotune writes files (python/topotune/output_file.py): a FIFO, a device
   node, a symbolic link, a directory or a missing parent is refused with one line and exit 2
   before the model is even built (its factory leaves a marker file when called); a planted
   OUT.tmp link is neither followed nor replaced. Bad factories (missing, not callable,
   raising, returning a non-module, a module that fails to import) are one line, exit 2.
usage: profile_test.py TOPOTUNE_BINARY (run with the python3 that has torch; PYTHONPATH=python)
"""
import json
import os
import stat
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


def run_profile(args, extra_path=None):
    cmd = [sys.executable, "-m", "topotune.profile", *args]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [p for p in (extra_path, os.path.dirname(os.path.abspath(__file__))) if p]
        + [env["PYTHONPATH"]])
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def profile(args, out):
    cmd = [sys.executable, "-m", "topotune.profile", *args, "--out", out]
    run = run_profile([*args, "--out", out])
    print(run.stdout.strip(), run.stderr.strip())
    check(run.returncode == 0, " ".join(cmd[1:]))
    with open(out) as f:
        return json.load(f)


def plan(topotune, model, batch, *extra):
    run = subprocess.run([topotune, "plan", "--instance", "p4d.24xlarge", "--nodes", "2",
                          "--model", model, "--batch-per-gpu", str(batch), "--format", "json",
                          *extra], capture_output=True, text=True)
    check(run.returncode == 0, f"topotune plan --model {os.path.basename(model)}: "
                               f"{run.stderr.strip() or 'exit 0'}")
    return json.loads(run.stdout) if run.returncode == 0 else {}


def as_if_on_gpu(path):
    """The profile with its device rewritten to cuda: to test the planner's use of measured
    times (a real GPU profile needs a GPU)."""
    with open(path) as f:
        doc = json.load(f)
    doc["measured_device"] = "cuda"
    out = path.replace(".json", "-as-cuda.json")
    with open(out, "w") as f:
        json.dump(doc, f)
    return out


def check_flops_against_builtin(tmp):
    """Per-layer FLOPs at 224x224 equal, layer by layer, the built-in resnet50 profile's
    (data/models/resnet50.json, written by scripts/gen_models.py from the architecture, not
    from a forward pass): the same convention counted independently."""
    out = os.path.join(tmp, "r50-224.json")
    p = profile(["torchvision:resnet50", "--batch", "1", "--device", "cpu", "--steps", "1",
                 "--warmup", "0"], out)
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data",
                           "models", "resnet50.json")) as f:
        builtin = {l["name"]: l["forward_flops"] for l in json.load(f)["layers"]}
    ours = {l["name"]: l.get("forward_flops") for l in p["layers"]}
    differ = [n for n in builtin if ours.get(n) != builtin[n]]
    check(set(ours) == set(builtin) and not differ,
          f"per-layer forward FLOPs = data/models/resnet50.json's ({len(builtin)} layers; "
          f"differ: {differ[:3]})")


def check_device_and_flops(topotune, path, p):
    """The profile records its device and per-layer FLOPs; plan refuses its CPU times for a
    GPU plan, and --timing flops times the layers from those FLOPs."""
    check(p.get("measured_device") == "cpu", f"device recorded: {p.get('measured_device')}")
    ours = sum(l.get("forward_flops", 0) for l in p["layers"]) * p["measured_batch_per_gpu"]
    run = subprocess.run([topotune, "plan", "--instance", "p4d.24xlarge", "--nodes", "2",
                          "--model", path], capture_output=True, text=True)
    check(run.returncode == 2 and "--timing flops" in run.stderr and "--device cuda" in run.stderr,
          f"CPU times refused for a GPU plan: exit {run.returncode} {run.stderr.strip()}")
    got = plan(topotune, path, 2, "--timing", "flops")
    c = got.get("inputs", {}).get("compute", {})
    want = ours / (c.get("peak_flops", 1) * c.get("efficiency", 1))
    planned = got.get("recommendation", {}).get("forward_s", -1)
    check(abs(planned - want) <= 1e-4 * want, f"--timing flops: forward {planned:.6g} s = {want:.6g} s")


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
    check_device_and_flops(topotune, r50, p)
    check_flops_against_builtin(tmp)
    got = plan(topotune, as_if_on_gpu(r50), 2)
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
    plan(topotune, as_if_on_gpu(tiny), 4)

    # A --name that would be code in the files topotune emits is refused before profiling.
    for bad in ("evil\ntouch pwned #", "\x1b[31mred", 'a"b'):
        out = os.path.join(tmp, "named.json")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.path.dirname(os.path.abspath(__file__)) + os.pathsep + env["PYTHONPATH"]
        run = subprocess.run([sys.executable, "-m", "topotune.profile", "tiny_model:make",
                              "--batch", "2", "--name", bad, "--out", out],
                             capture_output=True, text=True, env=env)
        lines = run.stderr.splitlines()
        check(run.returncode == 2 and len(lines) == 1
              and lines[0].startswith("topotune.profile: error: --name: the profile name")
              and "\x1b" not in run.stderr and not os.path.exists(out),
              f"--name {bad!r} refused: {run.stderr.strip().splitlines()[-1:]}")
    check_refusals(os.path.join(tmp, "refusals"))
    return 1 if failures else 0


def one_line_error(run, needle, what):
    err = run.stderr.strip()
    check(run.returncode == 2 and "\n" not in err and err.startswith("topotune.profile: error: ")
          and needle in err and "Traceback" not in err and not run.stdout,
          f"{what}: exit {run.returncode}, {err!r}")


def check_refusals(d):
    os.makedirs(d)
    marker = os.path.join(d, "factory-called")
    with open(os.path.join(d, "marked.py"), "w") as f:
        f.write("import torch\n"
                f"def make():\n    open({marker!r}, 'w').close()\n"
                "    return torch.nn.Linear(2, 2)\n"
                "def raises():\n    raise ValueError('bad\\nconfig')\n"
                "def number():\n    return 3\n"
                "def takes(x):\n    return x\n"
                "value = 3\n")
    with open(os.path.join(d, "broken.py"), "w") as f:
        f.write("raise RuntimeError('broken at import')\n")
    victim = os.path.join(d, "victim")
    with open(victim, "w") as f:
        f.write("precious\n")
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    os.symlink(victim, os.path.join(d, "link.json"))
    # A private device node, not /dev/null: a writer without the check would replace it.
    device = os.path.join(d, "null")
    try:
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        device = None  # not root: the FIFO covers the same check
    base = ["marked:make", "--batch", "2", "--steps", "1", "--input-shape", "2"]
    for out, needle in [(fifo, "it is a FIFO"), (device, "it is a character device"),
                        (os.path.join(d, "link.json"), "symbolic link"),
                        (d, "it is a directory"),
                        (os.path.join(d, "missing", "p.json"), "No such file or directory"),
                        ("", "the output path is empty")]:
        if out is None:
            continue
        one_line_error(run_profile([*base, "--out", out], d), needle, f"--out {out!r}")
        check(not os.path.exists(marker), f"--out {out!r} is refused before the model is built")
    check(stat.S_ISFIFO(os.stat(fifo).st_mode), "the FIFO is still a FIFO")
    os.symlink(victim, os.path.join(d, "p.json.tmp"))  # the old writer's fixed temp name
    good = os.path.join(d, "p.json")
    run = run_profile([*base, "--out", good], d)
    check(run.returncode == 0 and os.path.isfile(good) and not os.path.islink(good),
          f"--out next to a planted p.json.tmp link: exit {run.returncode} {run.stderr.strip()}")
    with open(victim) as f:
        check(f.read() == "precious\n", "the planted link's target is unchanged")
    left = sorted(n for n in os.listdir(d) if n != "__pycache__")
    want = ["marked.py", "broken.py", "victim", "fifo", "link.json", "p.json.tmp", "p.json",
            "factory-called"] + (["null"] if device else [])
    check(left == sorted(want), f"no temp file left: {left}")
    if device:
        check(stat.S_ISCHR(os.stat(device).st_mode), "the device node is still a device")
    for spec, needle in [("marked:nosuch", "has no 'nosuch'"), ("marked:value", "not callable"),
                         ("marked:raises", "the factory raised ValueError: bad config"),
                         ("marked:number", "returned int, not a torch.nn.Module"),
                         ("marked:takes", "the factory raised TypeError"),
                         ("broken:make", "RuntimeError: broken at import"),
                         ("no_such_module:make", "No module named"),
                         ("torchvision:no_such_model", "torchvision has no model")]:
        one_line_error(run_profile([spec, "--batch", "2", "--out", os.path.join(d, "x.json")], d),
                       needle, spec)
    helptext = run_profile(["--help"]).stdout
    check("IMPORTS AND RUNS CODE" in helptext, "--help says package.module:factory runs code")
    one_line_error(run_profile([*base, "--threads", "0", "--out", good], d), "--threads",
                   "--threads 0")
    check_progress_and_threads(d)


def check_progress_and_threads(d):
    """--progress always: one stderr line per step (warm-up and measured); --threads sets
    PyTorch's CPU threads and the profile records them; without a terminal (auto) stderr
    stays empty."""
    out = os.path.join(d, "progress.json")
    args = ["tiny_model:make", "--batch", "2", "--steps", "2", "--warmup", "1", "--threads", "1"]
    run = run_profile([*args, "--progress", "always", "--out", out])
    lines = run.stderr.splitlines()
    check(run.returncode == 0 and len(lines) == 3
          and lines[0].startswith("topotune.profile: step 1/3 (warm-up): forward ")
          and lines[2].startswith("topotune.profile: step 3/3 (measured): forward "),
          f"--progress always: {lines}")
    with open(out) as f:
        check(json.load(f).get("measured_cpu_threads") == 1, "--threads 1 recorded")
    run = run_profile([*args, "--out", out])
    check(run.returncode == 0 and run.stderr == "" and "1 CPU threads" in run.stdout,
          f"--progress auto without a terminal: stderr {run.stderr!r}")


if __name__ == "__main__":
    sys.exit(main())
