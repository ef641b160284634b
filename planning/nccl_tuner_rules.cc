#include "planning/nccl_tuner_rules.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "algorithms/schedule/collective_spec.h"

namespace topotune::tune {
namespace {

constexpr const char* kFieldsLine =
    "# collective min_bytes max_bytes nnodes nranks algo proto [channels]\n";

// The hook pads a bucket of `bytes` to G shards of whole elements (ddp_hooks.py, _padded):
// shard = ceil(elements / G) elements.
std::int64_t shard_bytes(std::int64_t bytes, int elem, int g) {
  const std::int64_t elements = bytes / elem;
  return (elements + g - 1) / g * elem;
}

struct Range {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
};

// The smallest and largest of f(bucket bytes) over the hook's buckets.
template <typename F>
Range range_of(const Candidate& c, F f) {
  Range r{INT64_MAX, 0};
  for (const sim::BucketEvent& b : c.step.buckets) {
    r.lo = std::min(r.lo, f(b.bytes.value));
    r.hi = std::max(r.hi, f(b.bytes.value));
  }
  return r;
}

void rule(std::ostringstream& o, const char* coll, Range r, int nodes, int ranks) {
  o << coll << " " << r.lo << " " << r.hi << " " << nodes << " " << ranks << " ring any\n";
}

}  // namespace

std::string nccl_tuner_rules_file(const Plan& plan, int channels_override) {
  const int nodes = plan.cluster.nodes;
  const int ranks = nodes * plan.cluster.shape.gpus_per_host;
  std::ostringstream o;
  o << "# topotune NCCL tuner rules (docs/tuner-plugin.md): allreduce on " << nodes << " nodes, "
    << ranks << " ranks, per bucket-size range of the plan; NCCL's own choice elsewhere.\n";
  if (channels_override > 0) {
    o << "# channels: the plan's override; NCCL caps it at the channels the communicator set up "
         "at init.\n";
  }
  o << kFieldsLine;
  for (const NcclBucketRule& r : plan.nccl_rules) {
    o << "allreduce " << r.min_bytes << " " << r.max_bytes << " " << nodes << " " << ranks << " "
      << r.algo << " " << r.proto;
    if (channels_override > 0) o << " " << channels_override;
    o << "\n";
  }
  return o.str();
}

std::string ddp_hook_tuner_rules_file(const Plan& plan, const Candidate& hook) {
  const int h = plan.cluster.nodes;
  const int g = plan.cluster.shape.gpus_per_host;
  const int elem = sched::dtype_size(hook.dtype);
  std::ostringstream o;
  o << "# topotune NCCL tuner rules (docs/tuner-plugin.md) for topotune's DDP comm hook running "
    << hook.algo.name() << " on " << h << " nodes x " << g
    << " GPUs: the phases the plan timed as topotune's ring run as NCCL's Ring, with NCCL's own "
       "protocol for it (any); NCCL's own choice for every other collective, size and "
       "communicator.\n";
  if (hook.step.buckets.empty()) return o.str() + "# No bucket was timed: no rules.\n";
  o << kFieldsLine;
  if (g > 1) {
    // NCCL reports reduce-scatter and all-gather sizes as count x nRanks, the whole buffer
    // (ncclFuncMaxSendRecvCount, src/include/enqueue.h at v2.30.7-1; src/include/info.h at
    // v2.21.5-1): the bucket padded to G shards.
    o << "# reducescatter and allgather on each node's group (1 node, " << g
      << " ranks): the padded bucket.\n";
    const Range whole = range_of(hook, [&](std::int64_t b) { return shard_bytes(b, elem, g) * g; });
    rule(o, "reducescatter", whole, 1, g);
    rule(o, "allgather", whole, 1, g);
  }
  if (h < 2) return o.str();
  const Range shard = range_of(hook, [&](std::int64_t b) { return shard_bytes(b, elem, g); });
  if (hook.algo.inner != AlgoKind::Ring) {
    o << "# allreduce on each rail group (" << h << " nodes, " << h << " ranks), " << shard.lo
      << "-" << shard.hi << " bytes: the plan timed " << algo_kind_name(hook.algo.inner)
      << ", not a ring (NCCL has no rhd or ps, and its Tree is not the schedule timed): no "
         "rule, NCCL's own choice.\n";
    return o.str();
  }
  o << "# allreduce on each rail group (" << h << " nodes, " << h
    << " ranks): the bucket's shard.\n";
  rule(o, "allreduce", shard, h, h);
  return o.str();
}

}  // namespace topotune::tune
