#pragma once
// ShardedPlan: `topotune plan --framework fsdp`. Ranks how a job shards its model states on
// the cluster: DDP (nothing sharded), FSDP2 full shard and HSDP (shard in the node, replicate
// across nodes), each with forward/backward prefetch 1 or 2 units and reshard_after_forward
// on or off, and DeepSpeed ZeRO-1/2/3 with DeepSpeed's defaults. Each row has its memory per
// GPU (sharded_memory.h) against the GPU's, and its step time (sharded_step.h) with every
// collective timed by the NCCL predictor on the group it runs on: the whole cluster for
// FSDP/ZeRO/DDP, one node for HSDP's shard group, one rank per node for its replica
// allreduce; with --backend mpi (no NCCL: topotune's runtime, gloo) each is topotune's ring
// simulated on the cluster's topology instead (sharded_mpi_comm.h). The recommendation is the
// fastest row that fits, kept only when it beats FSDP2's defaults (full shard, prefetch 1,
// reshard_after_forward=True) beyond the margin and the error bands of both (error_band.h's rule);
// a row that does not fit is never recommended.
//
// DeepSpeed's figures (deepspeed/runtime/zero/config.py, DeepSpeedZeroConfig, read at
// microsoft/DeepSpeed master): reduce_bucket_size = allgather_bucket_size = 5e8 elements,
// stage3_prefetch_bucket_size = 5e7 elements, overlap_comm defaults to True for stage 3 only
// (validator overlap_comm_valid), reduce_scatter=True.

#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "planning/plan.h"
#include "planning/sharded_memory.h"
#include "planning/sharded_step.h"

namespace topotune::tune {

/// How model states are sharded.
enum class ShardStrategy { Ddp, Fsdp, Hsdp, Zero1, Zero2, Zero3 };
/// "ddp", "fsdp", "hsdp", "zero1", "zero2", "zero3".
const char* shard_strategy_name(ShardStrategy s);

/// DeepSpeed's defaults, in elements (config.py, above).
inline constexpr std::int64_t kZeroReduceBucket = 500'000'000;
inline constexpr std::int64_t kZeroAllgatherBucket = 500'000'000;
inline constexpr std::int64_t kZeroPrefetchBucket = 50'000'000;

/// One ranked configuration.
struct ShardedCandidate {
  ShardStrategy strategy = ShardStrategy::Fsdp;
  int prefetch = 1;                   ///< FSDP/HSDP; ZeRO-3: pieces of the prefetch bucket
  bool reshard_after_forward = true;  ///< FSDP/HSDP
  bool recompute = false;             ///< full activation recomputation of every block
  int shard_ranks = 1;                ///< ranks a unit is sharded over
  ShardedStepResult step;
  MemoryBreakdown memory;
  bool fits = false;
  Bytes over{0};              ///< by how much it misses the GPU's memory (0 when it fits)
  std::string label() const;  ///< "fsdp prefetch=1 reshard=true"
};

struct ShardedPlan {
  std::string instance;
  int nodes = 1;
  int gpus_per_host = 1;
  /// HSDP's mesh as the plan times it: shard within what NCCL counts as a node (a host, or
  /// under MNNVL the NVLink domain across hosts), replicate across those.
  int hsdp_shard_ranks = 1;
  int hsdp_replicas = 1;
  std::string backend = "nccl";  ///< what times the collectives: plan_backend_name()
  std::string model;
  int batch_per_gpu = 1;
  Bytes gpu_memory{0};
  TransformerShape shape;
  /// Where the blocks live in the model ("model.layers" for "model.layers.N"), for --emit.
  std::string block_path;
  std::vector<ShardedCandidate> candidates;  ///< fitting rows first, each group by step time
  std::optional<std::size_t> recommended;    ///< index into candidates; none when nothing fits
  std::optional<std::size_t> defaults;       ///< FSDP2's defaults' row
  bool keeps_defaults = false;
  std::string sentence;
  std::vector<std::string> notes;
  PlanInputs inputs;           ///< what the plan was made from, stored for --replay
  ClusterShape cluster_shape;  ///< of inputs.cluster
  std::string version;         ///< topotune's, as DDP plans record it
};

/// The transformer shape a profile states (its "transformer" object); NotFound without one.
Expected<TransformerShape> transformer_shape(const ModelProfile& model);

/// Ranks the strategies for `inputs` (cluster, model, compute, NCCL parameters and release).
Expected<ShardedPlan> make_sharded_plan(const PlanInputs& inputs);

/// Plans a stored sharded plan's inputs again (stored.sharded); a note says so when this
/// version recommends another configuration than the stored plan did.
Expected<ShardedPlan> replay_sharded_plan(const StoredPlan& stored);

/// The plan as JSON (schema "topotune.sharded_plan/1"), deterministic.
std::string sharded_plan_to_json(const ShardedPlan& plan);

}  // namespace topotune::tune
