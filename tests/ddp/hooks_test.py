#!/usr/bin/env python3
"""topotune.ddp_hooks against plain DDP (gloo, CPU, spawned processes on 127.0.0.1).

Six ranks train the same small model (parameter sizes not divisible by the host size, so the
shards are padded) with plain DDP and with the hierarchical hook for G = 1, 2, 3, 6 ranks per
host (6, 3, 2 and 1 hosts), and with the hook under PyTorch's fp16_compress_wrapper. After
STEPS SGD steps on rank-dependent data, every parameter must equal plain DDP's within
floating-point tolerance (the sums are added in another order), and differ from what a
single rank's data alone would give (so the comparison sees the reduction at all).
usage: hooks_test.py (run by ctest with the python3 that has torch; PYTHONPATH=python)
"""
import os
import socket
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP

from topotune import ddp_hooks

WORLD = 6
STEPS = 4


def make_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(13, 37), torch.nn.Tanh(), torch.nn.Linear(37, 29),
                               torch.nn.Tanh(), torch.nn.Linear(29, 5))


def train(rank, hook_g=None, compression=None, world=True):
    model = make_model()
    ddp = DDP(model, bucket_cap_mb=0.001) if world else None  # several buckets per step
    if hook_g is not None:
        ddp_hooks.register(ddp, hook_g, compression)
    net = ddp if world else model
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    gen = torch.Generator().manual_seed(100 + rank)
    for _ in range(STEPS):
        x = torch.randn(8, 13, generator=gen)
        loss = net(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return [p.detach().clone() for p in model.parameters()]


def max_diff(a, b):
    return max((x - y).abs().max().item() for x, y in zip(a, b))


def worker(rank, port, results):
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    plain = train(rank)
    out = {"alone": max_diff(plain, train(rank, world=False))}
    for g in (1, 2, 3, 6):
        out[f"G={g}"] = max_diff(plain, train(rank, hook_g=g))
    out["G=2 fp16"] = max_diff(plain, train(rank, hook_g=2, compression="fp16"))
    results[rank] = out
    dist.destroy_process_group()


def main():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    results = mp.Manager().dict()
    mp.spawn(worker, args=(port, results), nprocs=WORLD, join=True)
    failures = 0
    for name in results[0]:
        worst = max(results[r][name] for r in range(WORLD))
        if name == "alone":
            ok = worst > 1e-3  # the other ranks' gradients changed the result
            bound = "> 1e-3"
        else:
            bound = 1e-4 if "fp16" in name else 1e-5
            ok = worst <= bound
            bound = f"<= {bound}"
        print(f"{'PASS' if ok else 'FAIL'}: {name}: max |param - plain DDP| = {worst:.3g} ({bound})")
        failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
