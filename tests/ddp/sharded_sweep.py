#!/usr/bin/env python3
"""One rank of the emulated sharded-training sweep (emulated_sharded_test.sh starts one per rank
in its host's network namespace; gloo over the emulated network).

A ZeRO-3/FSDP-style step built from torch.distributed primitives (PyTorch 1.13's FSDP does
not import under Debian's Python 3.11), on sharded_model.py's units, as FSDP2 runs it
(torch/distributed/fsdp/_fully_shard/: one all-gather per unit before its forward and again
before its backward, a reduce-scatter of its gradients when its backward is done):
  * each rank holds 1/n of every unit's fp32 parameters (n: the shard group: every rank for
    fsdp, the host's ranks for hsdp);
  * all-gather (gloo all_gather) of a unit's fp16 parameters on a side thread, issued when the
    compute of the unit `prefetch` places earlier in the pass starts (the first `prefetch` at
    the pass's start), FIFO as one stream: what `--prefetch` means to the planner
    (planning/sharded_step.h);
  * compute: the unit's sleeps; after forward the blocks are freed (reshard_after_forward), the
    root is kept (FSDP2's root default);
  * reduce-scatter of the unit's fp32 gradients on a second thread: a ring over isend/irecv
    (gloo 1.13 has no reduce_scatter; topotune.ddp_hooks.ring_reduce_scatter);
  * hsdp: the reduced shard is then allreduced (gloo's ring) across the hosts' ranks of the
    same local index, on a third thread;
  * the step ends when compute and every reduction are done; SGD on the shard.
Gradients are parameters x (rank + 1), so after one step every rank's reduced shard must be its
parameter shard x sum(rank + 1) over the group: checked once per configuration.
A step is timed from a barrier; its time is the slowest rank's. Rank 0 writes --out (JSON).
usage: sharded_sweep.py --rank R --world N --ranks-per-node G --out FILE
"""
import argparse
import json
import queue
import statistics
import threading
import time
import types

import torch
import torch.distributed as dist

import sharded_model
from topotune import ddp_hooks


class Stream:
    """A thread running submitted functions in order, as a CUDA stream runs kernels."""

    def __init__(self, name):
        self.q = queue.Queue()
        self.error = None
        threading.Thread(target=self._run, daemon=True, name=name).start()

    def _run(self):
        while True:
            fn, done = self.q.get()
            try:
                fn()
            except Exception as e:  # surfaced by the main thread at the next wait
                self.error = e
            done.set()

    def submit(self, fn):
        done = threading.Event()
        self.q.put((fn, done))
        return done


class Groups:
    """The process groups of one strategy. Separate groups for gathers and reductions: gloo
    pairs operations by a per-group sequence, and the two streams issue concurrently."""

    def __init__(self, world, g, rank, hsdp):
        hosts = world // g
        shard_sets = [list(range(h * g, h * g + g)) for h in range(hosts)] if hsdp \
            else [list(range(world))]
        self.shard_ranks = next(s for s in shard_sets if rank in s)
        self.index = self.shard_ranks.index(rank)
        self.n = len(self.shard_ranks)
        self.gather = self.reduce = self.replica = None
        for s in shard_sets:  # new_group is collective over the world: all create all
            a = dist.new_group(s)
            b = dist.new_group(s)
            if rank in s:
                self.gather, self.reduce = a, b
        if hsdp and hosts > 1:
            for l in range(g):
                r = dist.new_group([h * g + l for h in range(hosts)])
                if rank % g == l:
                    self.replica = r
        self.ring = types.SimpleNamespace(ranks_per_node=self.n, local_rank=self.index,
                                          node_ranks=self.shard_ranks, node_group=self.reduce)


class Unit:
    def __init__(self, numel, n, index, gen):
        self.numel = numel
        self.shard_len = (numel + n - 1) // n
        full = torch.randn(self.shard_len * n, generator=gen) * 0.02  # same on every rank
        self.shard = full[index * self.shard_len:(index + 1) * self.shard_len].clone()
        self.full = None      # gathered fp16 parameters, or None
        self.ready = None     # event: gathered
        self.grad_shard = None


class Trace:
    """Start and end of every collective and compute segment of a step, relative to its start
    (--trace: rank 0 writes the last timed step of each configuration), to see where a step's
    time goes against the planner's streams."""

    def __init__(self):
        self.t0, self.events = 0.0, []

    def span(self, what, unit, fn):
        start = time.perf_counter()
        try:
            return fn()
        finally:
            self.events.append((what, unit, round(start - self.t0, 5),
                                round(time.perf_counter() - self.t0, 5)))


def gather(u, grp):
    if grp.n == 1:
        u.full = u.shard.half()
        return
    out = [torch.empty(u.shard_len, dtype=torch.float16) for _ in range(grp.n)]
    dist.all_gather(out, u.shard.half(), group=grp.gather)
    u.full = torch.cat(out)


def reduce(u, grp, rank, world):
    grad = u.full.float() * (rank + 1)  # the unit's gradient on this rank
    if grp.n > 1:
        mine = ddp_hooks.ring_reduce_scatter(grp.ring, grad, u.shard_len).clone()
    else:
        mine = grad
    u.grad_shard = mine
    return mine


def step(units, segs, grp, streams, a, rank, world):
    """One training step; returns its seconds on this rank."""
    gs, rs, ar = streams
    t0 = time.perf_counter()
    tr = a.trace_now
    tr.t0, tr.events = t0, []
    pending = []

    def run_pass(order, backward):
        places, seen = [], set()
        for u, _, _ in order:
            if u not in seen:
                seen.add(u)
                places.append(u)

        def issue(p):
            if p < len(places):
                unit = units[places[p]]
                if unit.ready is None:
                    unit.ready = gs.submit(
                        lambda unit=unit, i=places[p]: tr.span("gather", i, lambda: gather(unit, grp)))
        for p in range(min(a.depth, len(places))):
            issue(p)
        left = {u: sum(1 for s in order if s[0] == u) for u in places}
        started = set()
        for u, f, b in order:
            p = places.index(u)
            units[u].ready.wait()
            if p not in started:
                started.add(p)
                issue(p + a.depth)
            tr.span("backward" if backward else "forward", u,
                    lambda: time.sleep(b if backward else f))
            left[u] -= 1
            if backward and left[u] == 0:
                unit = units[u]
                done = rs.submit(lambda unit=unit, i=u: tr.span(
                    "reduce", i, lambda: reduce(unit, grp, rank, world)))
                if grp.replica is not None:
                    def replicate(unit=unit, done=done):
                        done.wait()
                        tr.span("replica", u, lambda: dist.all_reduce(unit.grad_shard,
                                                                      group=grp.replica))
                    done = ar.submit(replicate)
                pending.append(done)

    run_pass(segs, False)
    if a.reshard:
        for i, unit in enumerate(units):
            if i != 0:
                unit.full, unit.ready = None, None
    run_pass(list(reversed(segs)), True)
    for d in pending:
        d.wait()
    for s in streams:
        if s.error:
            raise s.error
    for unit in units:
        unit.shard.sub_(unit.grad_shard, alpha=1e-3)  # SGD on the shard
        unit.full, unit.ready = None, None
    return time.perf_counter() - t0


def check_reduced(units, grp, world):
    """After one step: grad shard = parameter shard (fp16-rounded) x sum(rank + 1)."""
    everyone = grp.replica is not None or grp.n == world
    total = sum(r + 1 for r in (range(world) if everyone else grp.shard_ranks))
    return max((u.grad_shard - u.check_shard.half().float() * total).abs().max().item()
               / max(u.check_shard.abs().max().item() * total, 1e-12) for u in units)


def run_config(a, rank, world, strategy, per_unit, prefetch, streams):
    hsdp = strategy == "hsdp"
    grp = Groups(world, a.ranks_per_node, rank, hsdp)
    gen = torch.Generator().manual_seed(0)
    units = [Unit(numel, grp.n, grp.index, gen) for _, numel, _ in sharded_model.units(per_unit)]
    for u in units:
        u.check_shard = u.shard.clone()
    segs = sharded_model.segments(per_unit)
    a.depth = prefetch
    times = []
    err = None
    a.trace_now = Trace()
    for i in range(a.warmup + a.iters):
        dist.barrier()
        t = step(units, segs, grp, streams, a, rank, world)
        if i == 0:
            err = check_reduced(units, grp, world)
        if i >= a.warmup:
            times.append(t)
    t = torch.tensor(times + [err], dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t[:-1].tolist(), t[-1].item(), a.trace_now.events


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rank", type=int, required=True)
    ap.add_argument("--world", type=int, required=True)
    ap.add_argument("--ranks-per-node", type=int, required=True)
    ap.add_argument("--strategies", default="fsdp,hsdp")
    ap.add_argument("--prefetch", default="1,2")
    ap.add_argument("--unit-sizes", default="1,2", help="blocks per unit")
    ap.add_argument("--reshard", type=int, default=1)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--out", required=True)
    ap.add_argument("--trace", help="rank 0: the last step's spans of each configuration (JSON)")
    a = ap.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=a.rank, world_size=a.world)
    streams = (Stream("gather"), Stream("reduce"), Stream("replica"))
    rows, traces = [], []
    for strategy in a.strategies.split(","):
        for per_unit in [int(x) for x in a.unit_sizes.split(",")]:
            for prefetch in [int(x) for x in a.prefetch.split(",")]:
                times, err, events = run_config(a, a.rank, a.world, strategy, per_unit, prefetch,
                                                streams)
                traces.append({"strategy": strategy, "unit_blocks": per_unit,
                               "prefetch": prefetch, "events": events})
                rows.append({"strategy": strategy, "unit_blocks": per_unit, "prefetch": prefetch,
                             "reshard": bool(a.reshard), "times_s": times,
                             "median_s": statistics.median(times), "reduced_rel_err": err})
                if a.rank == 0:
                    print(f"# {strategy} unit {per_unit} prefetch {prefetch}: steps "
                          + " ".join(f"{t:.3f}" for t in times) + f" s; reduce err {err:.2g}",
                          flush=True)
    if a.rank == 0:
        with open(a.out, "w") as f:
            json.dump({"world": a.world, "ranks_per_node": a.ranks_per_node, "rows": rows}, f,
                      indent=1)
        if a.trace:
            with open(a.trace, "w") as f:
                json.dump(traces, f)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
