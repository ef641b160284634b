#include "planning/framework.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "core/enum_names.h"

namespace topotune::tune {
namespace {

using algo::AlgoKind;
using algo::AlgorithmChoice;

constexpr auto kNames = enum_names<Framework>({{Framework::Ddp, "ddp"},
                                               {Framework::Horovod, "horovod"},
                                               {Framework::Smddp, "smddp"},
                                               {Framework::Topotune, "topotune"},
                                               {Framework::Fsdp, "fsdp"}});

// One row of the capability table: `framework` runs `kind` (over `inner` for hierarchical;
// with any channel count if `channels`), told so by `how`, when `enabled`.
struct Capability {
  Framework framework;
  AlgoKind kind;
  AlgoKind inner;
  bool channels;
  bool enabled;
  const char* how;
};

constexpr std::array<Capability, 8> kCapabilities = {{
    {Framework::Ddp, AlgoKind::NcclDefault, AlgoKind::Ring, true, true, "NCCL's own choice"},
    // The emitted nccl.env loads topotune's tuner plugin with nccl_tuner_rules.txt, which
    // pins the algorithm for the plan's buckets only (no NCCL_ALGO: docs/output-files.md).
    {Framework::Ddp, AlgoKind::NcclRing, AlgoKind::Ring, true, true,
     "NCCL runs Ring via topotune's tuner rules"},
    {Framework::Ddp, AlgoKind::NcclTree, AlgoKind::Ring, true, true,
     "NCCL runs Tree via topotune's tuner rules"},
    {Framework::Ddp, AlgoKind::Hierarchical, AlgoKind::Ring, false, kDdpHierarchicalHook,
     "topotune's comm hook (topotune.ddp_hooks)"},
    {Framework::Horovod, AlgoKind::NcclDefault, AlgoKind::Ring, true, true, "NCCL's own choice"},
    // horovod.env pins nothing in NCCL: its comment gives the tuner rule that would.
    {Framework::Horovod, AlgoKind::NcclRing, AlgoKind::Ring, true, true,
     "Ring: not pinned by horovod.env, which gives the tuner rule that would"},
    {Framework::Horovod, AlgoKind::NcclTree, AlgoKind::Ring, true, true,
     "Tree: not pinned by horovod.env, which gives the tuner rule that would"},
    // HOROVOD_TORUS_ALLREDUCE (Horovod >= 0.26.0, NCCLTorusAllreduce in
    // horovod/common/ops/nccl_operations.cc): NCCL reduce-scatter in the node, NCCL allreduce
    // across nodes per local rank, NCCL all-gather, all on the GPU: what hierarchical(ring)
    // times. Not HOROVOD_HIERARCHICAL_ALLREDUCE: NCCLHierarchicalAllreduce copies each shard
    // to a malloc'd host buffer and runs MPI_Allreduce on the CPU across nodes, which no
    // topotune model times.
    {Framework::Horovod, AlgoKind::Hierarchical, AlgoKind::Ring, false, true,
     "HOROVOD_TORUS_ALLREDUCE=1, Horovod >= 0.26"},
}};
// topotune's runtime runs every family it has a schedule of (its row's factory), any inner
// algorithm and channel count.
constexpr Capability kTopotune{Framework::Topotune, AlgoKind::Ring, AlgoKind::Ring, true, true,
                               "topotune measure"};

const Capability* capability(Framework f, const AlgorithmChoice& a) {
  if (f == Framework::Topotune) return algo::family_of(a.kind).make ? &kTopotune : nullptr;
  for (const Capability& c : kCapabilities) {
    if (c.framework != f || c.kind != a.kind || !c.enabled) continue;
    if (!c.channels && a.channels > 0) continue;
    // Only a ring across hosts inside hierarchical.
    if (a.kind == AlgoKind::Hierarchical && a.inner != c.inner) {
      continue;
    }
    return &c;
  }
  return nullptr;
}

// SMDDP's instance types: aws/sagemaker-python-sdk src/sagemaker/fw_utils.py
// SM_DATAPARALLEL_SUPPORTED_INSTANCE_TYPES (ml.p3.16xlarge, ml.p3dn.24xlarge, ml.p4d.24xlarge,
// ml.p4de.24xlarge) lists what the SDK accepts; AWS's SMDDP FAQ narrows SMDDP v2 to "P4d and
// P4de instances with NVIDIA A100 GPUs and EFA" (docs.aws.amazon.com/sagemaker/latest/dg/
// data-parallel-faq.html). No P5: the current library is the FAQ's.
constexpr std::array<const char*, 2> kSmddpInstances = {"ml.p4d.24xlarge", "ml.p4de.24xlarge"};

}  // namespace

const char* framework_name(Framework f) { return kNames.name_of(f); }

Expected<Framework> parse_framework(std::string_view name) {
  return kNames.parse(name, "framework");
}

std::vector<Framework> all_frameworks() { return kNames.all(); }

std::string framework_names_text() { return kNames.names_text(); }

bool is_sharded(Framework f) { return f == Framework::Fsdp; }

bool framework_runs(Framework f, const AlgorithmChoice& a) { return capability(f, a) != nullptr; }

std::vector<Framework> frameworks_running(const AlgorithmChoice& a) {
  std::vector<Framework> out;
  for (Framework f : all_frameworks()) {
    if (framework_runs(f, a)) out.push_back(f);
  }
  return out;
}

std::string how_framework_runs(Framework f, const AlgorithmChoice& a) {
  const Capability* c = capability(f, a);
  if (!c) return "";
  if (f == Framework::Topotune) return std::string(c->how) + " --algos " + a.name();
  if (a.channels > 0) {
    // Never "NCCL's own choice": the count is the plan's, not NCCL's.
    const std::string base = a.kind == AlgoKind::NcclDefault ? "NCCL's own algorithm" : c->how;
    const std::string n = std::to_string(a.channels);
    // The count reaches NCCL only as the tuner rules' channels field (DDP's nccl.env), never
    // as NCCL_MIN/MAX_NCHANNELS; horovod.env writes no rules.
    if (f == Framework::Horovod) {
      return base + ", " + n + " channels: an override of NCCL's count, not set by horovod.env";
    }
    constexpr std::string_view kRules = " via topotune's tuner rules";  // said once, after N
    std::string algo = base;
    if (algo.ends_with(kRules)) algo.resize(algo.size() - kRules.size());
    return algo + ", " + n + " channels" + std::string(kRules) + " (an override of NCCL's count)";
  }
  return c->how;
}

bool smddp_supported(const std::string& name) {
  return std::find(kSmddpInstances.begin(), kSmddpInstances.end(), name) != kSmddpInstances.end();
}

std::string smddp_instances_text() {
  std::string s;
  for (const char* n : kSmddpInstances) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

}  // namespace topotune::tune
