// sharded_plan_to_json: the sharded planner's answer as "topotune.sharded_plan/1".

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "planning/error_band.h"
#include "planning/plan_inputs_json.h"
#include "planning/sharded_plan.h"
#include "planning/six_digits.h"

namespace topotune::tune {
namespace {

using nlohmann::ordered_json;

// Plan figures at six significant digits (six_digits.h).
double r6(double x) { return six_digits(x); }

ordered_json memory_json(const MemoryBreakdown& m) {
  return {{"params_bytes", m.params.value},       {"grads_bytes", m.grads.value},
          {"optimizer_bytes", m.optimizer.value}, {"gathered_bytes", m.gathered.value},
          {"buffers_bytes", m.buffers.value},     {"activations_bytes", m.activations.value},
          {"total_bytes", m.total().value}};
}

// `memory_known`: the GPU's memory is known; without it no row was checked (fits: null).
ordered_json candidate_json(const ShardedCandidate& c, bool memory_known) {
  ordered_json j;
  j["strategy"] = shard_strategy_name(c.strategy);
  j["label"] = c.label();
  j["prefetch"] = c.prefetch;
  j["reshard_after_forward"] = c.reshard_after_forward;
  j["recompute"] = c.recompute;
  j["shard_ranks"] = c.shard_ranks;
  j["step_time_s"] = r6(c.step.step.value);
  j["exposed_comm_s"] = r6(c.step.exposed_comm.value);
  j["forward_s"] = r6(c.step.forward_compute.value);
  j["backward_s"] = r6(c.step.backward_compute.value);
  j["optimizer_s"] = r6(c.step.optimizer.value);
  j["comm_busy_s"] = r6(c.step.comm_busy.value);
  j["error_band_s"] = r6(c.step.band.value);
  j["collectives"] = c.step.collectives;
  j["memory"] = memory_json(c.memory);
  j["fits"] = memory_known ? ordered_json(c.fits) : ordered_json(nullptr);
  j["over_bytes"] = c.over.value;
  return j;
}

}  // namespace

std::string sharded_plan_to_json(const ShardedPlan& p) {
  ordered_json j;
  j["schema"] = "topotune.sharded_plan/1";
  j["instance"] = p.instance;
  j["nodes"] = p.nodes;
  j["backend"] = p.backend;
  j["gpus_per_host"] = p.gpus_per_host;
  j["model"] = p.model;
  j["batch_per_gpu"] = p.batch_per_gpu;
  j["seq_len"] = p.shape.seq_len;
  j["gpu_memory_bytes"] = p.gpu_memory.value;
  j["recommendation"] = p.recommended
                            ? candidate_json(p.candidates[*p.recommended], p.gpu_memory.value > 0)
                            : ordered_json(nullptr);
  j["keeps_defaults"] = p.keeps_defaults;
  j["sentence"] = p.sentence;
  ordered_json rows = ordered_json::array();
  for (std::size_t i = 0; i < p.candidates.size(); ++i) {
    ordered_json c = candidate_json(p.candidates[i], p.gpu_memory.value > 0);
    c["rank"] = i + 1;
    rows.push_back(std::move(c));
  }
  j["candidates"] = rows;
  j["notes"] = p.notes;
  j["version"] = p.version;
  j["inputs"] = plan_inputs_json(p.inputs, p.cluster_shape);
  return j.dump(1) + "\n";
}

}  // namespace topotune::tune
