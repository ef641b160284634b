#include "planning/sharded_emitters.h"

#include <cctype>
#include <nlohmann/json.hpp>

#include "core/string_printf.h"
#include "planning/emitted_stamp.h"

namespace topotune::tune {
namespace {

constexpr const char* kFsdpSnippetFile = "fsdp_snippet.py";
constexpr const char* kDeepSpeedConfigFile = "ds_config.json";

// The best fitting row (candidates are ranked) whose strategy `wanted` accepts.
template <typename Pred>
const ShardedCandidate* best_fitting(const ShardedPlan& p, std::size_t& rank, Pred wanted) {
  for (std::size_t i = 0; i < p.candidates.size(); ++i) {
    if (p.candidates[i].fits && wanted(p.candidates[i].strategy)) {
      rank = i + 1;
      return &p.candidates[i];
    }
  }
  return nullptr;
}

std::string provenance(const ShardedPlan& p, std::size_t rank, const ShardedCandidate& c) {
  const std::string of = p.gpu_memory.value > 0
                             ? string_printf("of %.1f GB", p.gpu_memory.as_double() / 1e9)
                             : std::string("(the GPU's memory unknown: not checked)");
  return string_printf(
      "topotune plan %s x %d, model %s, batch %d: plan row %zu (%s), predicted step %.1f ms, "
      "%.1f GB per GPU %s",
      p.instance.c_str(), p.nodes, p.model.c_str(), p.batch_per_gpu, rank, c.label().c_str(),
      c.step.step.value * 1e3, c.memory.total().as_double() / 1e9, of.c_str());
}

// The block path becomes Python code: identifiers joined by dots only.
bool python_path(const std::string& s) {
  if (s.empty() || s.front() == '.' || s.back() == '.') return false;
  for (char ch : s) {
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.')) return false;
  }
  return s.find("..") == std::string::npos;
}

Expected<EmittedFile> fsdp_file(const ShardedPlan& p) {
  std::size_t rank = 0;
  const ShardedCandidate* c = best_fitting(p, rank, [](ShardStrategy s) {
    return s == ShardStrategy::Fsdp || s == ShardStrategy::Hsdp;
  });
  if (!c) return fail(Errc::Unsupported, "no FSDP or HSDP row fits: nothing to emit for fsdp");
  if (!python_path(p.block_path)) {
    return fail(Errc::InvalidArgument, "the model's blocks have no Python attribute path");
  }
  const bool hsdp = c->strategy == ShardStrategy::Hsdp;
  std::string s = "# " + provenance(p, rank, *c) + "\n";
  s += "import torch\nfrom torch.distributed.device_mesh import init_device_mesh\n";
  s += "from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard\n";
  if (c->recompute) {
    s += "from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import "
         "checkpoint_wrapper\n";
  }
  s += "\n\ndef shard(model):\n";
  s += hsdp ? string_printf(
                  "    # HSDP: shard inside each node as NCCL counts them (%d GPUs: a host, "
                  "or an NVLink domain of hosts), replicate across the %d of them.\n"
                  "    mesh = init_device_mesh(\"cuda\", (%d, %d), "
                  "mesh_dim_names=(\"replicate\", \"shard\"))\n",
                  p.hsdp_shard_ranks, p.hsdp_replicas, p.hsdp_replicas, p.hsdp_shard_ranks)
            : string_printf(
                  "    # Full shard over all %d GPUs.\n    mesh = init_device_mesh("
                  "\"cuda\", (%d,), mesh_dim_names=(\"shard\",))\n",
                  p.nodes * p.gpus_per_host, p.nodes * p.gpus_per_host);
  s += "    # bf16 compute, fp32 gradient reduction: what the plan timed and sized.\n";
  s += "    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)\n";
  s += "    blocks = model." + p.block_path + "\n";
  if (c->recompute) {
    s += "    # Full activation recomputation of every block (the plan's 'recompute').\n";
    s += "    for i, block in enumerate(blocks):\n        blocks[i] = checkpoint_wrapper(block)\n";
  }
  s += string_printf(
      "    for block in blocks:\n        fully_shard(block, mesh=mesh, "
      "reshard_after_forward=%s, mp_policy=mp)\n",
      c->reshard_after_forward ? "True" : "False");
  s += "    fully_shard(model, mesh=mesh, mp_policy=mp)  # the root: embeddings, norm, head\n";
  if (c->prefetch > 1) {
    s += string_printf("    # Prefetch %d blocks ahead (FSDP2's default overlaps one).\n",
                       c->prefetch);
    s += string_printf(
        "    for i, block in enumerate(blocks):\n"
        "        block.set_modules_to_forward_prefetch(list(blocks[i + 1:i + 1 + %d]))\n"
        "        block.set_modules_to_backward_prefetch(list(blocks[max(0, i - %d):i])[::-1])\n",
        c->prefetch, c->prefetch);
  }
  s += "    return model\n";
  return EmittedFile{kFsdpSnippetFile, s};
}

Expected<EmittedFile> deepspeed_file(const ShardedPlan& p) {
  std::size_t rank = 0;
  const ShardedCandidate* c = best_fitting(p, rank, [](ShardStrategy s) {
    return s == ShardStrategy::Zero1 || s == ShardStrategy::Zero2 || s == ShardStrategy::Zero3;
  });
  if (!c) return fail(Errc::Unsupported, "no ZeRO row fits: nothing to emit for deepspeed");
  const int stage = c->strategy == ShardStrategy::Zero1   ? 1
                    : c->strategy == ShardStrategy::Zero2 ? 2
                                                          : 3;
  nlohmann::ordered_json zero = {{"stage", stage},
                                 {"overlap_comm", stage == 3},
                                 {"reduce_scatter", true},
                                 {"reduce_bucket_size", kZeroReduceBucket}};
  if (stage < 3) zero["allgather_bucket_size"] = kZeroAllgatherBucket;
  if (stage == 3) zero["stage3_prefetch_bucket_size"] = kZeroPrefetchBucket;
  nlohmann::ordered_json j = {{"_topotune", provenance(p, rank, *c)},
                              {"train_micro_batch_size_per_gpu", p.batch_per_gpu},
                              {"bf16", {{"enabled", true}}},
                              {"zero_optimization", zero}};
  if (c->recompute) {
    j["_topotune_recompute"] =
        "the row recomputes every block's activations: enable activation checkpointing in the "
        "model (e.g. gradient_checkpointing_enable())";
  }
  return EmittedFile{kDeepSpeedConfigFile, j.dump(1) + "\n"};
}

}  // namespace

Expected<std::vector<EmittedFile>> emit_sharded(const ShardedPlan& plan, const std::string& kind) {
  if (kind != "fsdp" && kind != "deepspeed" && kind != "all") {
    return fail(Errc::InvalidArgument,
                "unknown --emit '" + kind + "' for --framework fsdp (fsdp, deepspeed, all)");
  }
  // Unknown memory checked no row: a file would configure one that may not fit.
  if (plan.gpu_memory.value <= 0) {
    return fail(Errc::InvalidArgument,
                "the GPU's memory is unknown, so no row was checked against it and no file is "
                "written: set it with a cluster file's \"overrides\": {\"gpu.memory_GiB\": N}");
  }
  const bool all = kind == "all";
  std::vector<EmittedFile> out;
  std::string missing;  // with "all": the families with no fitting row
  for (auto [name, make] :
       {std::pair{"fsdp", &fsdp_file}, std::pair{"deepspeed", &deepspeed_file}}) {
    if (!all && kind != name) continue;
    Expected<EmittedFile> f = make(plan);
    if (f) {
      out.push_back(std::move(*f));
    } else if (!all || f.error().code != Errc::Unsupported) {
      return Unexpected(f.error());
    } else {
      missing += (missing.empty() ? "" : "; ") + f.error().message;
    }
  }
  if (out.empty()) return fail(Errc::Unsupported, missing);
  for (EmittedFile& f : out) f.content = stamp_emitted(f.content);
  return out;
}

std::vector<std::string> sharded_emitter_file_names(const std::string& kind) {
  std::vector<std::string> out;
  if (kind == "fsdp" || kind == "all") out.push_back(kFsdpSnippetFile);
  if (kind == "deepspeed" || kind == "all") out.push_back(kDeepSpeedConfigFile);
  return out;
}

}  // namespace topotune::tune
