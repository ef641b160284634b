#!/usr/bin/env python3
"""One rank of the emulated DDP sweep (emulated_ddp_test.sh starts one per rank, each inside
its host's network namespace; rendezvous at MASTER_ADDR:MASTER_PORT over the emulated network,
gloo bound to eth0 by GLOO_SOCKET_IFNAME).

For each algorithm (gloo: DDP's own allreduce, i.e. gloo's ring; hier: topotune.ddp_hooks'
hierarchical allreduce) and bucket cap (MiB; the first bucket equal to the cap, as the plan
simulates it), a fresh DDP of the synthetic BERT-shaped model (synthetic.py) runs --warmup
steps (PyTorch 1.13 puts every gradient in one bucket on the first step and rebuilds the
buckets after it) and --iters timed steps. A step is forward + backward (which returns when
DDP's last bucket is reduced); the ranks start each step together (barrier) and a step's time
is the slowest rank's. The optimizer is left out, as the planner leaves it out. Then both
algorithms train --check-steps SGD steps from the same start and the largest parameter
difference over ranks is recorded. Rank 0 writes --out (JSON).
usage: ddp_sweep.py --rank R --world N --ranks-per-node G --caps 1,4,25,64 --out FILE
"""
import argparse
import json
import statistics
import time

import torch
import torch.distributed as dist
import torch.nn.parallel.distributed as ddp_module
from torch.nn.parallel import DistributedDataParallel as DDP

import synthetic
from topotune import ddp_hooks


def make_ddp(cap_mb, algo, state, sync=True):
    dist._DEFAULT_FIRST_BUCKET_BYTES = int(cap_mb * (1 << 20))
    model = synthetic.make()
    # Every rank builds the same model (seed 0): the sweep skips DDP's initial broadcast of
    # the parameters (35 MB, ~3 s at 200 Mbit/s per configuration); the training check keeps it.
    real_sync = ddp_module._sync_module_states
    if not sync:
        ddp_module._sync_module_states = lambda *args, **kwargs: None
    try:
        ddp = DDP(model, bucket_cap_mb=cap_mb, gradient_as_bucket_view=True)
    finally:
        ddp_module._sync_module_states = real_sync
    if algo == "hier":
        ddp.register_comm_hook(state, ddp_hooks.hierarchical_allreduce_hook)
    return model, ddp


def timed_steps(ddp, x, warmup, iters):
    times = []
    for i in range(warmup + iters):
        dist.barrier()
        t0 = time.perf_counter()
        ddp(x).sum().backward()
        if i >= warmup:
            times.append(time.perf_counter() - t0)
    t = torch.tensor(times, dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.tolist()


def trained(cap_mb, algo, state, x, steps):
    model, ddp = make_ddp(cap_mb, algo, state)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.5)
    for _ in range(steps):
        opt.zero_grad()
        ddp(x).sum().backward()
        opt.step()
    return [p.detach().clone() for p in model.parameters()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rank", type=int, required=True)
    ap.add_argument("--world", type=int, required=True)
    ap.add_argument("--ranks-per-node", type=int, required=True)
    ap.add_argument("--caps", required=True, help="bucket caps in MiB, comma list")
    ap.add_argument("--algos", default="gloo,hier")
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--check-steps", type=int, default=2)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    torch.set_num_threads(1)  # 2 shared cores: one thread per rank
    dist.init_process_group("gloo", rank=a.rank, world_size=a.world)
    state = ddp_hooks.HierarchicalState(a.ranks_per_node)
    gen = torch.Generator().manual_seed(1000 + a.rank)
    x = torch.randn(1, synthetic.HIDDEN, generator=gen)
    rows = []
    for algo in a.algos.split(","):
        for cap in [float(c) for c in a.caps.split(",")]:
            start = time.perf_counter()
            _, ddp = make_ddp(cap, algo, state, sync=False)
            times = timed_steps(ddp, x, a.warmup, a.iters)
            buckets = len(ddp.reducer._get_zeros_like_grad_buckets())
            rows.append({"algo": algo, "cap_mib": cap, "times_s": times,
                         "median_s": statistics.median(times), "buckets": buckets,
                         "wall_s": time.perf_counter() - start})
            if a.rank == 0:
                print(f"# {algo} cap {cap:g} MiB: {buckets} buckets, steps "
                      + " ".join(f"{t:.3f}" for t in times) + " s", flush=True)
            del ddp
    plain = trained(4, "gloo", state, x, a.check_steps)
    hier = trained(4, "hier", state, x, a.check_steps)
    start = [p.detach() for p in synthetic.make().parameters()]
    diff = torch.tensor([max((p - q).abs().max().item() for p, q in zip(plain, hier)),
                         max((p - q).abs().max().item() for p, q in zip(plain, start))])
    dist.all_reduce(diff, op=dist.ReduceOp.MAX)
    if a.rank == 0:
        with open(a.out, "w") as f:
            json.dump({"world": a.world, "ranks_per_node": a.ranks_per_node, "rows": rows,
                       "hook_vs_plain_max_abs": diff[0].item(),
                       "trained_vs_start_max_abs": diff[1].item()}, f, indent=1)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
