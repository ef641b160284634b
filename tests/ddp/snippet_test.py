#!/usr/bin/env python3
"""The emitted ddp_snippet.py registers topotune's hook when the plan picks hierarchical(ring).

The synthetic BERT-shaped model (synthetic.py) is profiled with python3 -m topotune.profile and
planned on the 2 hosts x 2 ranks cluster JSON of `topotune emulate up --files-only` (200
Mbit/s; communication-bound, so hierarchical(ring) wins, as it does measured: README). The
snippet must import topotune.ddp_hooks and register it for 2 ranks per host; it is then run
as written (except the GPU-only device_ids line) on 4 gloo CPU ranks with the checkout's
python/ on PYTHONPATH, and DDP must report the hook as registered. A plan that picks an
NCCL-runnable algorithm (fp32 ring forced with --algos ring) must not mention the hook.
usage: snippet_test.py TOPOTUNE_BINARY
"""
import json
import os
import socket
import subprocess
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

HERE = os.path.dirname(os.path.abspath(__file__))
failures = 0


def check(ok, what):
    global failures
    print(f"{'PASS' if ok else 'FAIL'}: {what}")
    failures += not ok


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        print(r.stdout, r.stderr)
    check(r.returncode == 0, " ".join(os.path.basename(c) for c in cmd[:3]) + " ...")
    return r


def plan(topotune, cluster, profile, out, *extra):
    os.makedirs(out, exist_ok=True)
    run([topotune, "plan", "--cluster", cluster, "--backend", "mpi", "--framework", "ddp",
         "--dtype", "fp32",
         "--model", profile, "--batch-per-gpu", "1", "--emit", "ddp", "--out", out, *extra])
    with open(os.path.join(out, "ddp_snippet.py")) as f:
        return f.read()


def rank_main(rank, port, snippet, results):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), LOCAL_RANK=str(rank))
    dist.init_process_group("gloo", rank=rank, world_size=4)
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Linear(8, 2))
    scope = {"model": model, "local_rank": rank}
    exec(snippet.replace("    device_ids=[local_rank],\n", ""), scope)
    ddp = scope["model"]
    ddp(torch.randn(2, 8)).sum().backward()  # the hook runs
    results[rank] = ddp._get_ddp_logging_data().get("comm_hook", "")
    dist.destroy_process_group()


def main():
    topotune = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="tt-snippet-")
    run([topotune, "emulate", "up", "--files-only", "--nodes", "2", "--ranks-per-node", "2",
         "--nic", "200mbit", "--dir", os.path.join(tmp, "emu")])
    cluster = os.path.join(tmp, "emu", "cluster.json")
    profile = os.path.join(tmp, "synthetic.json")
    env = dict(os.environ, PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run([sys.executable, "-m", "topotune.profile", "synthetic:make", "--name", "synthetic-bert",
         "--batch", "1", "--steps", "2", "--out", profile], env=env)
    snippet = plan(topotune, cluster, profile, os.path.join(tmp, "hier"))
    check("# NOTE" not in snippet, "no 'needs topotune's runtime' note when the hook runs it")
    check("from topotune import ddp_hooks" in snippet
          and "ddp_hooks.register(model, ranks_per_node=2)" in snippet,
          "the snippet imports topotune.ddp_hooks and registers it for 2 ranks per host")
    check("PYTHONPATH=<topotune checkout>/python" in snippet, "one-line use from a checkout")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    results = mp.Manager().dict()
    mp.spawn(rank_main, args=(port, snippet, results), nprocs=4, join=True)
    hooks = [results[r] for r in range(4)]
    check(all("hierarchical_allreduce_hook" in h for h in hooks),
          f"the snippet registers the hook on every rank: {hooks}")
    # plan --buckets: only those caps are searched, a replay searches them again, bad lists
    # are refused with exit 2.
    got = run([topotune, "plan", "--cluster", cluster, "--backend", "mpi", "--model", profile,
               "--batch-per-gpu", "1", "--buckets", "4M,8M", "--format", "json"]).stdout
    with open(os.path.join(tmp, "buckets.json"), "w") as f:
        f.write(got)
    again = run([topotune, "plan", "--replay", os.path.join(tmp, "buckets.json"), "--format",
                 "json"]).stdout
    caps = [sorted({c["bucket_bytes"] for c in json.loads(t)["candidates"]}) for t in (got, again)]
    check(caps[0] == caps[1] == [4 << 20, 8 << 20], f"--buckets 4M,8M searches {caps}")
    for bad in ("0", "abc", "-4M"):
        r = subprocess.run([topotune, "plan", "--cluster", cluster, "--buckets", bad],
                           capture_output=True, text=True)
        check(r.returncode == 2 and "--buckets" in r.stderr, f"--buckets {bad}: {r.stderr.strip()}")
    ring = plan(topotune, cluster, profile, os.path.join(tmp, "ring"), "--algos", "ring")
    check("ddp_hooks" not in ring, "an NCCL-runnable plan (ring) registers no topotune hook")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
