#include "planning/sharded_plan.h"

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "algorithms/nccl/nccl_predictor.h"
#include "core/enum_names.h"
#include "core/string_printf.h"
#include "core/version.h"
#include "planning/error_band.h"
#include "planning/peak_bracket.h"
#include "planning/replica_memory.h"
#include "planning/sharded_mpi_comm.h"
#include "timing/cluster_shape.h"
#include "timing/model_timers.h"

namespace topotune::tune {
namespace {

constexpr int kBf16 = 2;
constexpr int kFp32 = 4;
// Adam's step on one parameter of the shard, memory-bound: reads fp32 master, gradient, m and
// v (16 bytes), writes master, m, v and the bf16 copy (14 bytes). [derived]
constexpr double kAdamBytesPerParam = 30;

// `bands`' figures for collective `c` (its table group), as an error function.
CollectiveError band_error(const ClusterBands& bands, sched::Collective c) {
  return [b = bands.with_collective(c)](Bytes bytes) { return b.figure(bytes).error; };
}

// The NCCL predictor of one group, as a collective timer, and the error band of its kind of
// communicator (its NIC class and node count: a node group's collectives take the one-node
// figures).
struct Group {
  std::unique_ptr<algo::NcclPredictor> predictor;
  algo::NcclSystem system;
  algo::NcclVersion version;
  CollectiveTime time(sched::Collective c) const {
    const algo::NcclPredictor* p = predictor.get();
    return [p, c](Bytes b) -> Expected<Seconds> {
      if (b.value <= 0) return Seconds(0);
      TT_TRY(const algo::NcclPrediction r, p->predict(c, b));
      return r.chosen.time;
    };
  }
  CollectiveError error(sched::Collective c) const {
    return band_error(ClusterBands(system, version, c), c);
  }
};

Group make_group(const algo::NcclSystem& system, const PlanInputs& in) {
  algo::NcclOptions o;
  o.version = in.nccl_version;
  return {std::make_unique<algo::NcclPredictor>(system, in.nccl_params, o), system,
          in.nccl_version};
}

// The collectives of the three groups, from the NCCL predictor or (--backend mpi) topotune's
// rings on the flow simulator.
struct GroupTimers {
  CollectiveTime world_allgather, world_reduce_scatter, world_allreduce;
  CollectiveTime node_allgather, node_reduce_scatter;
  CollectiveTime replica_allreduce;
  // Each collective's expected error (error_band.h), in the same order.
  CollectiveError world_allgather_error, world_reduce_scatter_error, world_allreduce_error;
  CollectiveError node_allgather_error, node_reduce_scatter_error;
  CollectiveError replica_allreduce_error;
};

// The planner's fixed inputs and the three groups' timers.
struct Context {
  const PlanInputs& in;
  ShardUnits units;        // as computed
  ShardUnits recomputed;   // with full activation recomputation
  ShardUnits zero3_units;  // in ZeRO-3's prefetch pieces
  ShardUnits zero3_recomputed;
  TransformerShape shape;
  int world = 1, gpus = 1, nodes = 1;  // ranks; HSDP's shard group and replicas
  Bytes gpu_memory{0};
  double hbm = 0;  // bytes/s, 0 = unknown
  GroupTimers t;
};

ShardedCandidate row(ShardStrategy strategy, int prefetch, bool reshard, bool recompute) {
  ShardedCandidate c;
  c.strategy = strategy;
  c.prefetch = prefetch;
  c.reshard_after_forward = reshard;
  c.recompute = recompute;
  return c;
}

MemoryConfig sharding(int states, int grads, int params) {
  MemoryConfig m;
  m.state_ranks = states;
  m.grad_ranks = grads;
  m.param_ranks = params;
  return m;
}

Seconds optimizer_time(const Context& x, int state_ranks) {
  if (x.hbm <= 0) return Seconds(0);
  const double shard = static_cast<double>(x.units.total_params()) / state_ranks;
  return Seconds(shard * kAdamBytesPerParam / x.hbm);
}

void finish(const Context& x, ShardedCandidate& c, const MemoryConfig& m) {
  c.memory = sharded_memory(x.units.total_params(), x.shape, m);
  // An unknown GPU memory (0) checks nothing: every row counts as fitting and the plan says so.
  c.fits = x.gpu_memory.value <= 0 || c.memory.total() <= x.gpu_memory;
  c.over = c.fits ? Bytes(0) : Bytes(c.memory.total().value - x.gpu_memory.value);
}

Expected<ShardedCandidate> fsdp_row(const Context& x, bool hsdp, int prefetch, bool reshard,
                                    bool recompute) {
  ShardedCandidate c =
      row(hsdp ? ShardStrategy::Hsdp : ShardStrategy::Fsdp, prefetch, reshard, recompute);
  c.shard_ranks = hsdp ? x.gpus : x.world;
  ShardedStepConfig s;
  s.prefetch = prefetch;
  s.reshard_after_forward = reshard;
  s.param_bytes = kBf16;
  s.grad_bytes = kFp32;  // MixedPrecisionPolicy(reduce_dtype=torch.float32), the plan's choice
  s.shard_ranks = c.shard_ranks;
  s.replica_allreduce = hsdp;
  s.optimizer = optimizer_time(x, c.shard_ranks);
  const ShardedComm comm{hsdp ? x.t.node_allgather : x.t.world_allgather,
                         hsdp ? x.t.node_reduce_scatter : x.t.world_reduce_scatter,
                         x.t.replica_allreduce,
                         hsdp ? x.t.node_allgather_error : x.t.world_allgather_error,
                         hsdp ? x.t.node_reduce_scatter_error : x.t.world_reduce_scatter_error,
                         x.t.replica_allreduce_error};
  TT_TRY(c.step, simulate_sharded_step(recompute ? x.recomputed : x.units, s, comm));
  MemoryConfig m = sharding(c.shard_ranks, c.shard_ranks, c.shard_ranks);
  m.recompute = recompute;
  // The root stays gathered; `prefetch` blocks ahead of the one computing.
  const std::int64_t block = x.units.largest_block();
  m.gathered_params =
      reshard ? x.units.root_params() + (prefetch + 1) * block : x.units.total_params();
  // The unit being reduced and the next one's unsharded gradients.
  m.reduce_buffer_params = x.units.largest_unit() + block;
  m.grad_bytes = kFp32;
  m.batch_per_gpu = x.in.compute.batch_per_gpu;
  finish(x, c, m);
  return c;
}

Expected<ShardedCandidate> ddp_row(const Context& x, bool recompute) {
  ShardedCandidate c = row(ShardStrategy::Ddp, 0, false, recompute);
  ShardedStepConfig s;
  s.gather_params = false;
  s.reshard_after_forward = false;
  s.grad_bytes = kBf16;
  s.optimizer = optimizer_time(x, 1);
  const ShardedComm comm{{}, x.t.world_allreduce, {}, {}, x.t.world_allreduce_error, {}};
  TT_TRY(c.step, simulate_sharded_step(recompute ? x.recomputed : x.units, s, comm));
  MemoryConfig m;
  m.recompute = recompute;
  m.batch_per_gpu = x.in.compute.batch_per_gpu;
  finish(x, c, m);
  return c;
}

Expected<ShardedCandidate> zero_row(const Context& x, int stage, bool recompute) {
  const ShardStrategy kinds[] = {ShardStrategy::Zero1, ShardStrategy::Zero2, ShardStrategy::Zero3};
  ShardedCandidate c = row(kinds[stage - 1], stage == 3 ? 1 : 0, stage == 3, recompute);
  c.shard_ranks = x.world;
  ShardedStepConfig s;
  s.gather_params = stage == 3;
  s.reshard_after_forward = stage == 3;
  s.grad_bytes = kBf16;  // DeepSpeed reduces in the gradients' dtype (communication_data_type)
  s.reduce_bucket_params = kZeroReduceBucket;
  s.overlap_reduce = stage == 3;  // overlap_comm's default
  s.post_gather_bucket_params = stage == 3 ? 0 : kZeroAllgatherBucket;
  s.optimizer = optimizer_time(x, x.world);
  const ShardedComm comm{x.t.world_allgather,       x.t.world_reduce_scatter,       {},
                         x.t.world_allgather_error, x.t.world_reduce_scatter_error, {}};
  const ShardUnits& units = stage == 3 ? (recompute ? x.zero3_recomputed : x.zero3_units)
                                       : (recompute ? x.recomputed : x.units);
  TT_TRY(c.step, simulate_sharded_step(units, s, comm));
  MemoryConfig m = sharding(x.world, stage >= 2 ? x.world : 1, stage == 3 ? x.world : 1);
  m.recompute = recompute;
  m.gathered_params = stage == 3 ? 2 * std::min(kZeroPrefetchBucket, x.units.largest_unit()) : 0;
  m.reduce_buffer_params = kZeroReduceBucket;
  m.grad_bytes = kBf16;
  m.gather_buffer_params = stage == 3 ? 0 : kZeroAllgatherBucket;
  m.batch_per_gpu = x.in.compute.batch_per_gpu;
  finish(x, c, m);
  return c;
}

Expected<std::vector<ShardedCandidate>> all_rows(const Context& x) {
  std::vector<ShardedCandidate> rows;
  for (bool recompute : {false, true}) {
    TT_TRY(ShardedCandidate ddp, ddp_row(x, recompute));
    rows.push_back(std::move(ddp));
    for (bool hsdp : {false, true}) {
      if (hsdp && x.nodes < 2) continue;  // one (NCCL) node: HSDP is FSDP
      for (int prefetch : {1, 2}) {
        for (bool reshard : {true, false}) {
          TT_TRY(ShardedCandidate c, fsdp_row(x, hsdp, prefetch, reshard, recompute));
          rows.push_back(std::move(c));
        }
      }
    }
    for (int stage : {1, 2, 3}) {
      TT_TRY(ShardedCandidate c, zero_row(x, stage, recompute));
      rows.push_back(std::move(c));
    }
  }
  return rows;
}

// The replica group of HSDP: one rank per node, G of them sharing the node's NICs at once.
algo::NcclSystem replica_system(algo::NcclSystem s) {
  const int g = std::max(1, s.gpus_per_node);
  s.nic_bandwidth = s.nic_bandwidth * (static_cast<double>(std::max(1, s.nics_per_node)) / g);
  s.nics_per_node = 1;
  s.gpus_per_node = 1;
  return s;
}

// What the group timers point into: the NCCL predictors, or the simulated rings.
struct TimerOwners {
  std::unique_ptr<ModelTimers> model;
  std::vector<Group> groups;
  std::shared_ptr<const ShardedMpiComm> mpi;
};

Expected<GroupTimers> make_group_timers(const PlanInputs& in, TimerOwners& own) {
  using sched::Collective;
  using sched::DataType;
  if (in.backend == PlanBackend::Mpi) {
    TT_TRY(own.mpi, ShardedMpiComm::create(in.cluster));
    const ShardedMpiComm& m = *own.mpi;
    // Gathered parameters are 16-bit (kBf16), reductions fp32 or 16-bit: the dtype only
    // rounds the buffer to whole elements and prices the reduction, so fp32 stands for both.
    // No log measured topotune's rings: the cluster's NCCL figures stand in, as for DDP plans
    // on --backend mpi (plan.cc's ClusterBands of the cluster).
    const ClusterBands bands(in.cluster, in.nccl_version);
    const CollectiveError ag = band_error(bands, Collective::Allgather);
    const CollectiveError rs = band_error(bands, Collective::ReduceScatter);
    const CollectiveError ar = band_error(bands, Collective::Allreduce);
    return GroupTimers{m.timer(Collective::Allgather, ShardGroup::World, DataType::BF16),
                       m.timer(Collective::ReduceScatter, ShardGroup::World, DataType::F32),
                       m.timer(Collective::Allreduce, ShardGroup::World, DataType::F32),
                       m.timer(Collective::Allgather, ShardGroup::Node, DataType::BF16),
                       m.timer(Collective::ReduceScatter, ShardGroup::Node, DataType::F32),
                       m.timer(Collective::Allreduce, ShardGroup::Replica, DataType::F32),
                       ag,
                       rs,
                       ar,
                       ag,
                       rs,
                       ar};
  }
  TT_TRY(own.model, ModelTimers::create(in.cluster, in.nccl_params, true, in.nccl_version));
  const algo::NcclSystem& world = own.model->system();
  algo::NcclSystem node = world;
  node.nodes = 1;
  own.groups.push_back(make_group(world, in));
  own.groups.push_back(make_group(node, in));
  own.groups.push_back(make_group(replica_system(world), in));
  const Group& w = own.groups[0];
  const Group& n = own.groups[1];
  const Group& r = own.groups[2];
  return GroupTimers{w.time(Collective::Allgather),      w.time(Collective::ReduceScatter),
                     w.time(Collective::Allreduce),      n.time(Collective::Allgather),
                     n.time(Collective::ReduceScatter),  r.time(Collective::Allreduce),
                     w.error(Collective::Allgather),     w.error(Collective::ReduceScatter),
                     w.error(Collective::Allreduce),     n.error(Collective::Allgather),
                     n.error(Collective::ReduceScatter), r.error(Collective::Allreduce)};
}

std::string gb(Bytes b) { return string_printf("%.1f GB", b.as_double() / 1e9); }
std::string ms(Seconds s) { return string_printf("%.1f ms", s.value * 1e3); }

// Why DDP does not fit, when it does not: its unsharded model states.
std::string ddp_words(const ShardedPlan& p) {
  for (const ShardedCandidate& c : p.candidates) {
    if (c.strategy != ShardStrategy::Ddp || c.recompute || c.fits) continue;
    const MemoryBreakdown& m = c.memory;
    return " DDP does not fit: every GPU holds all model states (16 bytes per parameter: " +
           gb(Bytes(m.params.value + m.grads.value + m.optimizer.value)) + ") and " +
           gb(m.activations) + " of activations, " + gb(c.over) + " over.";
  }
  return "";
}

void rank_and_recommend(ShardedPlan& p) {
  std::stable_sort(p.candidates.begin(), p.candidates.end(),
                   [](const ShardedCandidate& a, const ShardedCandidate& b) {
                     if (a.fits != b.fits) return a.fits;
                     return a.step.step < b.step.step;
                   });
  for (std::size_t i = 0; i < p.candidates.size(); ++i) {
    const ShardedCandidate& c = p.candidates[i];
    if (c.strategy == ShardStrategy::Fsdp && c.prefetch == 1 && c.reshard_after_forward &&
        !c.recompute) {
      p.defaults = i;
    }
  }
  if (p.candidates.empty() || !p.candidates.front().fits) {
    const ShardedCandidate& least = *std::min_element(
        p.candidates.begin(), p.candidates.end(),
        [](const auto& a, const auto& b) { return a.memory.total() < b.memory.total(); });
    p.sentence = "Nothing fits: the smallest footprint (" + least.label() + ") needs " +
                 gb(least.memory.total()) + " per GPU, " + gb(least.over) + " more than the " +
                 gb(p.gpu_memory) + " GPU (activations " + gb(least.memory.activations) +
                 "): use more GPUs or a smaller batch or sequence.";
    p.sentence += ddp_words(p);
    return;
  }
  p.recommended = 0;
  const ShardedCandidate& best = p.candidates.front();
  if (p.defaults && p.candidates[*p.defaults].fits && *p.defaults != 0) {
    const ShardedCandidate& d = p.candidates[*p.defaults];
    const double gain = d.step.step.value - best.step.step.value;
    const double band = d.step.band.value + best.step.band.value;
    if (!(gain > kDefaultDtypeMargin * d.step.step.value && gain > band)) {
      p.keeps_defaults = true;
      p.recommended = p.defaults;
      p.sentence = "Keep FSDP2's defaults (" + d.label() + "): predicted step " + ms(d.step.step) +
                   "; the fastest row that fits (" + best.label() + ") gains " + ms(Seconds(gain)) +
                   ", within the margin or the error band (" + ms(Seconds(band)) + ").";
      return;
    }
  }
  p.sentence = "Use " + best.label() + ": predicted step " + ms(best.step.step) + " (" +
               ms(best.step.exposed_comm) + " exposed communication), " + gb(best.memory.total()) +
               (p.gpu_memory.value > 0 ? " per GPU of " + gb(p.gpu_memory) + "."
                                       : " per GPU (the GPU's memory is unknown: not checked).");
}

// What the model leaves out, for the report.
void add_notes(ShardedPlan& p, bool optimizer_timed, PlanBackend backend) {
  if (p.gpu_memory.value <= 0) {
    p.notes.push_back(
        "memory: the GPU's memory is unknown, so no row was checked against it (every row "
        "counts as fitting); a cluster file's \"overrides\": {\"gpu.memory_GiB\": N} sets it");
  }
  if (!optimizer_timed) {
    p.notes.push_back("optimizer step not timed: the GPU's memory bandwidth is unknown");
  }
  if (backend == PlanBackend::Mpi) {
    p.notes.push_back(
        "backend mpi: collectives are topotune's rings (gloo's allgather and allreduce are "
        "rings) simulated on the cluster's topology, each alone; in the step, a shard group's "
        "all-gathers and reduce-scatters in flight at once share its links equally (k at once: "
        "each at 1/k), HSDP's replica allreduce keeps its time alone");
    p.notes.push_back(
        "HSDP replica allreduce: the G rings (one per local rank) simulated at once, sharing "
        "the hosts' NICs");
  } else {
    p.notes.push_back(
        "collectives timed by the NCCL predictor on their own group, each alone; in the step, "
        "a shard group's all-gathers and reduce-scatters in flight at once share its links "
        "equally (k at once: each at 1/k), HSDP's replica allreduce (other links) keeps its "
        "time alone; no row is charged for the SMs NCCL takes from compute");
    p.notes.push_back(
        "HSDP replica allreduce: one rank per node, each of the node's GPUs given an equal "
        "share of its NICs (G allreduces run at once)");
  }
  p.notes.push_back(
      "DDP row: one allreduce per unit (not DDP's 25 MiB buckets; --framework ddp searches "
      "those); ZeRO-3: units fetched in stage3_prefetch_bucket_size pieces, one ahead; ZeRO-1/2: "
      "reduce-scatter in reduce_bucket_size buckets without overlap (overlap_comm's default "
      "below stage 3), then an all-gather of the updated parameters");
  p.notes.push_back(
      "memory: ZeRO's 16 bytes per parameter (mixed-precision Adam) sharded per strategy, "
      "gathered units, reduction buckets, activations 34*s*b*h per layer (Korthikanti et al. "
      "2022, flash attention; with recompute 2*s*b*h per layer plus one layer's 34*s*b*h, and "
      "each block's forward again in its backward) and 6*s*b*V of logits; the CUDA context, "
      "NCCL buffers and fragmentation are not counted");
}

constexpr auto kStrategyNames = enum_names<ShardStrategy>({
    {ShardStrategy::Ddp, "ddp"},
    {ShardStrategy::Fsdp, "fsdp"},
    {ShardStrategy::Hsdp, "hsdp"},
    {ShardStrategy::Zero1, "zero1"},
    {ShardStrategy::Zero2, "zero2"},
    {ShardStrategy::Zero3, "zero3"},
});

}  // namespace

const char* shard_strategy_name(ShardStrategy s) { return kStrategyNames.name_of(s); }

std::string ShardedCandidate::label() const {
  const std::string tail = recompute ? " recompute" : "";
  if (strategy == ShardStrategy::Fsdp || strategy == ShardStrategy::Hsdp) {
    return string_printf("%s prefetch=%d reshard=%s", shard_strategy_name(strategy), prefetch,
                         reshard_after_forward ? "true" : "false") +
           tail;
  }
  return shard_strategy_name(strategy) + tail;
}

Expected<TransformerShape> transformer_shape(const ModelProfile& model) {
  const nlohmann::json j = nlohmann::json::parse(model.json, nullptr, false);
  if (j.is_discarded() || !j.contains("transformer") || !j["transformer"].is_object()) {
    return fail(Errc::NotFound, "model '" + model.name +
                                    "' states no transformer shape (its \"transformer\" object): "
                                    "the sharded planner needs it for the activations");
  }
  const nlohmann::json& t = j["transformer"];
  TransformerShape s;
  try {
    s = {t.at("layers").get<int>(), t.at("hidden").get<std::int64_t>(), t.at("heads").get<int>(),
         t.at("seq_len").get<std::int64_t>(), t.at("vocab").get<std::int64_t>()};
  } catch (const nlohmann::json::exception& e) {
    return fail(Errc::ParseError, "model '" + model.name + "' transformer: " + e.what());
  }
  if (s.layers <= 0 || s.hidden <= 0 || s.heads <= 0 || s.seq_len <= 0 || s.vocab <= 0) {
    return fail(Errc::ParseError, "model '" + model.name + "' transformer: sizes must be > 0");
  }
  return s;
}

namespace {

// make_sharded_plan at the inputs' own peak (or the GPU's).
Expected<ShardedPlan> sharded_plan_at_peak(const PlanInputs& in) {
  TT_TRY(const ClusterShape shape, cluster_shape(in.cluster));
  ComputeParams compute = in.compute;
  // The precision's peak and the model family's fitted efficiency, as DDP plans resolve them.
  TT_TRY_VOID(resolve_compute(compute, in.model, in.cluster.instance.gpu));
  TimerOwners owners;
  TT_TRY(GroupTimers group_timers, make_group_timers(in, owners));
  TT_TRY(ShardUnits units, make_shard_units(in.model, compute));
  TT_TRY(TransformerShape tshape, transformer_shape(in.model));
  const topo::GpuSpec& gpu = in.cluster.instance.gpu;
  const ShardUnits recomputed = with_recompute(units);
  // HSDP's groups are the timers' (make_group_timers): NCCL's nodes, which under MNNVL are
  // NVLink domains of several hosts (one domain: HSDP is FSDP); topotune's runtime's hosts.
  int hsdp_shard = shape.gpus_per_host;
  int hsdp_replicas = shape.hosts;
  if (owners.model) {
    hsdp_shard = owners.model->system().gpus_per_node;
    hsdp_replicas = owners.model->system().nodes;
  }
  Context x{in,
            units,
            recomputed,
            split_units(units, kZeroPrefetchBucket),
            split_units(recomputed, kZeroPrefetchBucket),
            tshape,
            shape.ranks(),
            hsdp_shard,
            hsdp_replicas,
            memory_to_check(gpu),
            gpu.memory_bandwidth ? gpu.memory_bandwidth->value : 0.0,
            std::move(group_timers)};
  ShardedPlan p;
  p.instance = in.cluster.instance.name;
  p.nodes = shape.hosts;
  p.gpus_per_host = shape.gpus_per_host;
  p.hsdp_shard_ranks = hsdp_shard;
  p.hsdp_replicas = hsdp_replicas;
  p.backend = plan_backend_name(in.backend);
  p.model = in.model.name;
  p.batch_per_gpu = in.compute.batch_per_gpu;
  p.gpu_memory = memory_to_check(gpu);
  p.shape = tshape;
  if (units.units.size() > 1) {
    const std::string& first = units.units[1].name;
    p.block_path = first.substr(0, first.rfind('.'));
  }
  TT_TRY(p.candidates, all_rows(x));
  rank_and_recommend(p);
  add_notes(p, x.hbm > 0, in.backend);
  if (const std::string words = published_memory_words(gpu); !words.empty()) {
    p.notes.insert(p.notes.begin(), words);
  }
  p.inputs = in;
  p.cluster_shape = shape;
  p.version = kVersion;
  return p;
}

// What the recommendation gains over FSDP2's defaults, as a share of their step (0 when
// either is missing).
double relative_gain(const ShardedPlan& p) {
  if (!p.recommended || !p.defaults) return 0;
  const double defaults = p.candidates[*p.defaults].step.step.value;
  return (defaults - p.candidates[*p.recommended].step.step.value) / defaults;
}

std::string recommended_label(const ShardedPlan& p) {
  return p.recommended ? p.candidates[*p.recommended].label() : "";
}

// As DDP plans do (plan.cc, plan_over_peak_range): the advice at both ends of the published
// peaks, given only when it is the same.
Expected<ShardedPlan> sharded_plan_over_peak_range(const PlanInputs& in,
                                                   const topo::PublishedRange& range) {
  PlanInputs low_inputs = in;
  PlanInputs high_inputs = in;
  low_inputs.compute.peak_flops = range.low;
  high_inputs.compute.peak_flops = range.high;
  TT_TRY(ShardedPlan low, sharded_plan_at_peak(low_inputs));
  TT_TRY(ShardedPlan high, sharded_plan_at_peak(high_inputs));
  if (low.keeps_defaults != high.keeps_defaults ||
      recommended_label(low) != recommended_label(high)) {
    return peak_dependent_advice(in.cluster.instance.gpu.model, range, low.sentence, high.sentence);
  }
  const bool low_claims_less = relative_gain(low) <= relative_gain(high);
  ShardedPlan& used = low_claims_less ? low : high;
  const ShardedPlan& other = low_claims_less ? high : low;
  const double used_flops = used.inputs.compute.peak_flops;
  used.inputs = in;  // recorded as given: a replay brackets again
  const std::string step =
      other.recommended ? string_printf("step %.3g ms",
                                        other.candidates[*other.recommended].step.step.value * 1e3)
                        : std::string("nothing fits");
  used.notes.push_back(peak_bracket_note(in.cluster.instance.gpu.model, range, used_flops,
                                         other.inputs.compute.peak_flops, step));
  return std::move(used);
}

}  // namespace

Expected<ShardedPlan> make_sharded_plan(const PlanInputs& in) {
  const std::optional<topo::PublishedRange> range =
      peak_to_bracket(in.compute, in.model, in.cluster.instance.gpu);
  if (range) return sharded_plan_over_peak_range(in, *range);
  return sharded_plan_at_peak(in);
}

Expected<ShardedPlan> replay_sharded_plan(const StoredPlan& stored) {
  TT_TRY(ShardedPlan plan, make_sharded_plan(stored.inputs));
  const std::string now = recommended_label(plan);
  if (now != stored.sharded_row) {
    const auto shown = [](const std::string& label) {
      return label.empty() ? std::string("nothing that fits") : label;
    };
    plan.notes.insert(plan.notes.begin(), "replay: topotune " + plan.version + " recommends " +
                                              shown(now) + ", the stored plan (topotune " +
                                              stored.version + ") " + shown(stored.sharded_row));
  }
  return plan;
}

}  // namespace topotune::tune
