#pragma once
// ShardedStep: one training step of a sharded data-parallel job on one GPU, as three CUDA
// streams (compute, all-gather, reduction) plus an HSDP replica-allreduce stream.
//
// Forward, units in first-use order: a unit's all-gather (bf16 parameters, the full unit's
// bytes as nccl-tests counts an all-gather) may start once the all-gather stream is free and
// the compute of the unit `prefetch` places earlier in that order has started. FSDP2's
// default overlaps the next unit's all-gather (its own stream) with the current unit's
// compute; `set_modules_to_forward_prefetch([next])` "gives the same all-gather overlap
// behavior as the default", a list of two or more overlaps more and "will use more reserved
// memory" (pytorch/pytorch torch/distributed/fsdp/_fully_shard/_fully_shard.py, FSDPModule
// docstring). A segment computes once its unit is gathered.
// After forward a unit is freed (reshard_after_forward) and gathered again in backward, in
// reverse order with the same prefetch rule (FSDP2 `_backward_prefetch`: the unit before, in
// reverse post-forward order; pytorch/pytorch torch/distributed/fsdp/_fully_shard/
// _fsdp_param_group.py). The root unit is never freed (FSDP2's root default
// reshard_after_forward=False). When a unit's backward is done its gradients are reduced
// (reduce-scatter, or allreduce for DDP) on the reduction stream, in buckets when
// `reduce_bucket_params` > 0 (DeepSpeed's reduce_bucket_size); for HSDP each reduced shard is
// then allreduced across the replica groups on its own stream. Without overlap (DeepSpeed
// overlap_comm=false) a reduction holds the compute stream too. The step ends when compute
// and every reduction are done, plus the optimizer step, plus (ZeRO-1/2) the all-gather of
// the updated parameters in `post_gather_bucket_params` buckets.
//
// The streams run as a StreamTimeline (stream_timeline.h): each collective's time alone is
// its work, and the shard group's all-gathers and reductions in flight at once share that
// group's links by processor sharing (k in flight: each at 1/k of its rate), since both cross
// the same ranks' links (one group, one ring; on the emulated cluster both rings send to the
// right neighbour over the same NIC and uplink: gloo/allgather.cc, and ring_reduce_scatter in
// python/topotune/ddp_hooks.py). So in backward a unit's all-gather slows the previous unit's
// reduce-scatter and is slowed by it. The replica allreduce crosses the links between shard
// groups (the NICs, for HSDP's node groups), which neither of them crosses (NVLink, or
// loopback on the emulated cluster, emulation/cluster_model.h), and one runs at a time on its
// stream, so it keeps its time alone.
//
// Not modelled: sharing that is not equal (a collective's latency-bound part is shared like
// its bandwidth-bound part; a collective bound on another link than its neighbour's still
// halves), NVLink or PCIe shared between a node group's collectives and the replica
// allreduce's NIC traffic, SMs the collectives take from compute, the CPU issuing kernels.

#include <cstdint>
#include <functional>

#include "core/expected.h"
#include "core/units.h"
#include "planning/shard_units.h"

namespace topotune::tune {

/// Time of one collective of `bytes` (the whole buffer, nccl-tests' size) on its group.
using CollectiveTime = std::function<Expected<Seconds>(Bytes)>;

/// Expected |error| of a collective's predicted time, a fraction, by its bytes (the error-band
/// table's figure for its collective, group and size: error_band.h).
using CollectiveError = std::function<double(Bytes)>;

/// The collectives a strategy uses; empty time functions are never called, an empty error
/// function counts as no error.
struct ShardedComm {
  CollectiveTime allgather;          ///< parameters, on the shard group
  CollectiveTime reduce;             ///< gradients: reduce-scatter (shard group), or allreduce
  CollectiveTime replica_allreduce;  ///< HSDP: the reduced shard across replica groups
  CollectiveError allgather_error;
  CollectiveError reduce_error;
  CollectiveError replica_allreduce_error;
};

/// How the step runs.
struct ShardedStepConfig {
  bool gather_params = true;              ///< parameters sharded: all-gathered before use
  int prefetch = 1;                       ///< units gathered ahead of use (>= 1)
  bool reshard_after_forward = true;      ///< free gathered units after forward (not the root)
  int param_bytes = 2;                    ///< bytes per gathered parameter (bf16)
  int grad_bytes = 4;                     ///< bytes per reduced gradient (reduce dtype)
  std::int64_t reduce_bucket_params = 0;  ///< 0: one reduction per unit
  bool overlap_reduce = true;             ///< false: reductions block compute
  int shard_ranks = 1;                    ///< ranks sharing a unit (replica allreduce: 1/shard)
  bool replica_allreduce = false;         ///< HSDP
  std::int64_t post_gather_bucket_params = 0;  ///< > 0: ZeRO-1/2 parameter all-gather
  Seconds optimizer{0};                        ///< the optimizer step on this GPU's states
  /// The shard group's all-gathers and reductions in flight at once share its links; false
  /// times each as if alone (what the model did before; tests compare the two).
  bool share_shard_group_links = true;
};

struct ShardedStepResult {
  Seconds step{0};
  Seconds forward_compute{0};
  Seconds backward_compute{0};
  Seconds optimizer{0};
  Seconds exposed_comm{0};  ///< step - compute - optimizer
  Seconds comm_busy{0};     ///< sum of every collective's time
  Seconds band{0};          ///< sum of every collective's time times its expected error
  int collectives = 0;
};

/// Simulates one step. Errors: a collective timer's.
Expected<ShardedStepResult> simulate_sharded_step(const ShardUnits& units,
                                                  const ShardedStepConfig& config,
                                                  const ShardedComm& comm);

}  // namespace topotune::tune
