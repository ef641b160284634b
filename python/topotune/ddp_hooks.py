"""DDP communication hooks that run topotune's hierarchical allreduce over torch.distributed.

Hierarchical (2-level) allreduce of one DDP bucket of S bytes on H hosts x G ranks per host
(the schedule `topotune plan` calls hierarchical(ring), algorithms/hierarchical.h):

  1. intra-host reduce-scatter: a ring over the host's G ranks, G-1 steps, (G-1)/G*S sent per
     rank; rank l of the host then holds shard l summed over the host;
  2. inter-host allreduce of shard l among the ranks of local index l of every host (one
     process group per rail): the backend's allreduce (gloo: its ring, NCCL: its own choice);
  3. intra-host all-gather of the shards.

Rank numbering is torchrun's: global rank = host * G + local rank, so hosts hold consecutive
ranks. Every rank must build the state (it creates process groups collectively).

Backends:
  * gloo (PyTorch 1.13): ProcessGroupGloo has no reduce_scatter (it raises "ProcessGroupGloo
    does not support reduce_scatter", torch/csrc/distributed/c10d/ProcessGroupGloo.cpp), so
    step 1 is built from isend/irecv as the ring above, i.e. exactly the schedule topotune
    times; step 2 is gloo's allreduce (gloo/allreduce.cc: the default algorithm is `ring`,
    reduce-scatter then all-gather in rank order); step 3 is gloo's allgather (a ring).
    gloo's collectives block the calling thread, so the three steps of each bucket run on one
    worker thread per state, buckets in the order DDP hands them over: every rank then issues
    the same collectives in the same order on each group (gloo pairs operations by a per-group
    sequence number, so an order that differed between ranks would mix buckets up).
  * NCCL: the three steps are issued asynchronously in the hook (reduce-scatter and
    all-gather are native; operations on one NCCL group run in issue order).

Composes with PyTorch's compression wrappers:
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    hook = default_hooks.fp16_compress_wrapper(hierarchical_allreduce_hook)
(bf16 needs NCCL: gloo has no bfloat16 reduction in PyTorch 1.13.)
"""
import queue
import threading
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Tuple

import torch
import torch.distributed as dist

if TYPE_CHECKING:  # PyTorch 1.13 declares it here, not in torch.distributed's stubs
    from torch._C._distributed_c10d import ProcessGroup

__all__ = ["HierarchicalState", "hierarchical_allreduce_hook", "register"]

# Annotations here are evaluated (no `from __future__ import annotations`): DDP's
# register_comm_hook compares the hook's to dist.GradBucket and torch.futures.Future[Tensor]
# and refuses any other (torch/nn/parallel/distributed.py, _check_comm_hook).

# A future of the averaged bucket: what DDP's comm hooks return.
Future = torch.futures.Future[torch.Tensor]


class HierarchicalState:
    """The process groups of hierarchical allreduce, and the worker thread gloo needs.

    ranks_per_node: G, the ranks of one host (torchrun's LOCAL_WORLD_SIZE). The world size must
    be a multiple of it. Call on every rank, in the same order as other new_group calls.
    """

    def __init__(self, ranks_per_node: int,
                 process_group: "Optional[ProcessGroup]" = None) -> None:
        if process_group is not None and process_group is not dist.group.WORLD:
            raise ValueError("HierarchicalState spans the default (world) process group only")
        world = dist.get_world_size()
        if ranks_per_node < 1 or world % ranks_per_node != 0:
            raise ValueError(f"world size {world} is not a multiple of ranks_per_node "
                             f"{ranks_per_node}")
        rank = dist.get_rank()
        self.world_size = world
        self.ranks_per_node = ranks_per_node
        self.nodes = world // ranks_per_node
        self.node = rank // ranks_per_node
        self.local_rank = rank % ranks_per_node
        self.node_ranks = [self.node * ranks_per_node + l for l in range(ranks_per_node)]
        self.node_group: Optional[ProcessGroup] = None
        self.rail_group: Optional[ProcessGroup] = None
        # new_group is collective over the whole world: every rank creates every group.
        for n in range(self.nodes):
            ranks = [n * ranks_per_node + l for l in range(ranks_per_node)]
            group = dist.new_group(ranks) if ranks_per_node > 1 else None
            if n == self.node:
                self.node_group = group
        for l in range(ranks_per_node):
            ranks = [n * ranks_per_node + l for n in range(self.nodes)]
            group = dist.new_group(ranks) if self.nodes > 1 else None
            if l == self.local_rank:
                self.rail_group = group
        self.backend = dist.get_backend()
        self._queue: Optional[queue.Queue[Tuple[torch.Tensor, Future]]] = None
        self._thread: Optional[threading.Thread] = None

    # -- gloo: one worker thread runs the buckets in order -------------------------------
    def _submit(self, tensor: torch.Tensor) -> Future:
        if self._queue is None or self._thread is None:
            self._queue = queue.Queue()
            self._thread = threading.Thread(target=self._work, daemon=True,
                                            name="topotune-hierarchical")
            self._thread.start()
        fut: Future = torch.futures.Future()
        self._queue.put((tensor, fut))
        return fut

    def _work(self) -> None:
        assert self._queue is not None  # set before the thread starts
        while True:
            tensor, fut = self._queue.get()
            try:
                allreduce_blocking(self, tensor)
                fut.set_result(tensor)
            except Exception as e:  # handed to DDP, which raises it in the training loop
                fut.set_exception(e)  # type: ignore[arg-type]  # PyTorch 1.13 stub types it T


def _padded(state: HierarchicalState, flat: torch.Tensor) -> Tuple[torch.Tensor, int]:
    """flat (1-D) padded with zeros to a multiple of G, and the shard length."""
    g = state.ranks_per_node
    shard = (flat.numel() + g - 1) // g
    if shard * g == flat.numel():
        return flat, shard
    out = torch.zeros(shard * g, dtype=flat.dtype, device=flat.device)
    out[: flat.numel()].copy_(flat)
    return out, shard


def ring_reduce_scatter(state: HierarchicalState, buf: torch.Tensor, shard: int) -> torch.Tensor:
    """In-place ring reduce-scatter of buf (G shards of `shard` elements) over the host.

    Step s (0..G-2): local rank i sends shard (i-s-1) mod G to i+1 and adds shard (i-s-2) mod G
    received from i-1; after G-1 steps shard i on rank i is the host's sum (as in
    algorithms/ring_allreduce.h's reduce-scatter half). Returns the view of the own shard.

    Each step posts its receive before its send. A gloo send waits until the peer has announced
    its receive (NOTIFY_RECV_READY; facebookincubator/gloo gloo/transport/tcp/pair.cc: "sends
    cannot execute until the remote side is ready to receive"). Posted after the send, that
    announcement queues behind this rank's own data in its NIC's queue, and every step waits
    for the queue to drain: on the emulated 4x1 ring at 200 Mbit/s a 1.78 MB reduce-scatter
    took 66-68 ms that way, 56.5 ms (the wire's 57 ms) with the receive first. gloo's own
    rings hide the announcement by keeping two segments in flight (gloo/allgather.cc at
    589850726e8a).
    """
    g, i = state.ranks_per_node, state.local_rank
    chunks = buf.view(g, shard)
    right = state.node_ranks[(i + 1) % g]
    left = state.node_ranks[(i - 1) % g]
    incoming = torch.empty(shard, dtype=buf.dtype, device=buf.device)
    for s in range(g - 1):
        recv = dist.irecv(incoming, left, group=state.node_group)
        send = dist.isend(chunks[(i - s - 1) % g].contiguous(), right, group=state.node_group)
        recv.wait()
        chunks[(i - s - 2) % g].add_(incoming)
        send.wait()
    return chunks[i]


def allreduce_blocking(state: HierarchicalState, tensor: torch.Tensor) -> None:
    """Averages tensor (1-D) over the world in place: steps 1-3, blocking (gloo)."""
    tensor.div_(state.world_size)
    if state.ranks_per_node == 1:
        if state.rail_group is not None:
            dist.all_reduce(tensor, group=state.rail_group)
        return
    buf, shard = _padded(state, tensor)
    mine = ring_reduce_scatter(state, buf, shard)
    if state.rail_group is not None:
        own = mine.clone()
        dist.all_reduce(own, group=state.rail_group)
    else:
        own = mine
    outputs: List[torch.Tensor] = list(buf.view(state.ranks_per_node, shard).unbind(0))
    dist.all_gather(outputs, own, group=state.node_group)
    if buf is not tensor:
        tensor.copy_(buf[: tensor.numel()])


def _allreduce_nccl(state: HierarchicalState, tensor: torch.Tensor) -> Future:
    """Steps 1-3 issued asynchronously (NCCL runs one group's operations in issue order)."""
    tensor.div_(state.world_size)
    if state.ranks_per_node == 1:
        return dist.all_reduce(tensor, group=state.rail_group, async_op=True).get_future() \
            .then(lambda fut: tensor)
    buf, shard = _padded(state, tensor)
    own = torch.empty(shard, dtype=buf.dtype, device=buf.device)
    dist._reduce_scatter_base(own, buf, group=state.node_group)  # type: ignore[attr-defined]
    if state.rail_group is not None:
        dist.all_reduce(own, group=state.rail_group)
    work = dist._all_gather_base(  # type: ignore[attr-defined]
        buf, own, group=state.node_group, async_op=True)

    def unpad(fut: Future) -> torch.Tensor:
        if buf is not tensor:
            tensor.copy_(buf[: tensor.numel()])
        return tensor
    return work.get_future().then(unpad)


def hierarchical_allreduce_hook(state: HierarchicalState,
                                bucket: dist.GradBucket) -> Future:  # type: ignore[name-defined]
    """DDP comm hook: the bucket averaged over the world by hierarchical allreduce.

    Register with `ddp.register_comm_hook(HierarchicalState(G), hierarchical_allreduce_hook)`
    or `register(ddp, G)`. Returns a future of the averaged bucket tensor.
    """
    tensor = bucket.buffer()
    if state.backend == dist.Backend.NCCL:
        return _allreduce_nccl(state, tensor)
    if state.ranks_per_node == 1 and state.rail_group is not None:
        # One rank per host: step 2 alone, one asynchronous collective issued in bucket order
        # on this thread, as DDP's own allreduce (no worker thread to wake per bucket).
        tensor.div_(state.world_size)
        work = dist.all_reduce(tensor, group=state.rail_group, async_op=True)
        return work.get_future().then(lambda fut: tensor)
    return state._submit(tensor)


def register(ddp_model: torch.nn.parallel.DistributedDataParallel, ranks_per_node: int,
             compression: Optional[str] = None) -> HierarchicalState:
    """Registers the hierarchical hook on a DDP model; returns its state.

    compression: None, "fp16" or "bf16" (PyTorch's fp16/bf16_compress_wrapper around the hook).
    """
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    state = HierarchicalState(ranks_per_node)
    hook: Callable[[HierarchicalState, Any], Future] = hierarchical_allreduce_hook
    if compression == "fp16":
        hook = default_hooks.fp16_compress_wrapper(hook)
    elif compression == "bf16":
        hook = default_hooks.bf16_compress_wrapper(hook)
    elif compression is not None:
        raise ValueError(f"compression must be None, 'fp16' or 'bf16', got {compression!r}")
    ddp_model.register_comm_hook(state, hook)  # type: ignore[operator]  # Module.__getattr__
    return state
