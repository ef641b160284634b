#include "algorithms/nccl/nccl_predictor.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace topotune::algo {
namespace {

/// A class of hops on the pipeline path: latency per hop, rate per channel, hop count.
struct Stage {
  const char* name;
  double latency_s;
  double rate;  ///< bytes/s per channel, after efficiencies
  double hops;
};

int idx(NcclAlgo a) { return static_cast<int>(a); }
int idx(NcclProto p) { return static_cast<int>(p); }

template <class T>
bool allowed(const std::vector<T>& v, T x) {
  return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
}

int ring_steps(sched::Collective c, int n) {
  return c == sched::Collective::Allreduce ? 2 * (n - 1) : n - 1;
}

}  // namespace

NcclPredictor::NcclPredictor(NcclSystem system, NcclModelParams params, NcclOptions options)
    : system_(std::move(system)), params_(std::move(params)), options_(std::move(options)) {}

int NcclPredictor::searched_channels(NcclAlgo a) const {
  const NcclModelParams& p = params_;
  if (a == NcclAlgo::Nvls || a == NcclAlgo::NvlsTree) return static_cast<int>(p.nvls_channels);
  // NCCL's search packs channels of ~nvlink_channel_GBps each into a GPU's NVLink bandwidth.
  int intra = 2;
  if (system_.intra != topo::IntraFabric::PcieOnly) {
    intra = static_cast<int>(
        std::lround(system_.gpu_intra_bandwidth.gbps_bytes() / p.nvlink_channel_GBps));
  }
  intra = std::clamp(intra, 2, static_cast<int>(p.max_channels));
  if (system_.nodes == 1) return intra;
  // Across nodes NCCL runs about two channels per NIC.
  return std::min(intra, std::max(2, 2 * system_.nics_per_node));
}

int NcclPredictor::channels(NcclAlgo a) const {
  int n = searched_channels(a);
  if (a == NcclAlgo::Nvls || a == NcclAlgo::NvlsTree) return n;
  // NCCL_MAX_NCHANNELS drops channels, NCCL_MIN_NCHANNELS duplicates them; never beyond
  // MAXCHANNELS. (The planner sets both to one value, so their order does not matter there.)
  if (options_.max_channels > 0) n = std::min(n, options_.max_channels);
  if (options_.min_channels > 0) n = std::max(n, options_.min_channels);
  return std::clamp(n, 1, static_cast<int>(params_.max_channels));
}

std::string NcclPredictor::disabled_reason(sched::Collective c, NcclAlgo a, NcclProto p) const {
  const NcclSystem& s = system_;
  const NcclVersion& v = options_.version;
  if (!allowed(options_.algos, a)) return "excluded by NCCL_ALGO";
  if (!allowed(options_.protos, p)) return "excluded by NCCL_PROTO";
  const bool nvls_family = a == NcclAlgo::Nvls || a == NcclAlgo::NvlsTree;
  if (c == sched::Collective::Broadcast && a != NcclAlgo::Ring) return "broadcast runs Ring only";
  if (a == NcclAlgo::Tree && c != sched::Collective::Allreduce) return "Tree is allreduce only";
  if (a == NcclAlgo::NvlsTree && c != sched::Collective::Allreduce) {
    return "NVLSTree is allreduce only";
  }
  if (a == NcclAlgo::Tree && !v.at_least(2, 4)) return "no Tree before NCCL 2.4";
  if (a == NcclAlgo::Tree && s.nodes == 1 && !v.at_least(2, 5)) {
    return "no intra-node Tree before NCCL 2.5";
  }
  if (nvls_family) {
    if (p != NcclProto::Simple) return "NVLS runs Simple only";
    if (!s.nvls) return "no NVLS-capable NVSwitch";
    if (!s.sm90) return "NVLS needs SM90+";
    if (s.gpus_per_node < 2) return "NVLS needs 2+ GPUs per node";
    if (a == NcclAlgo::Nvls && s.nodes > 1) return "multi-node NVLS needs CollNet";
    if (a == NcclAlgo::NvlsTree && s.nodes == 1) return "NVLSTree is multi-node only";
    if (!v.at_least(2, a == NcclAlgo::Nvls ? 17 : 18)) return "NCCL version has no NVLS";
  }
  if (p == NcclProto::LL128) {
    if (!v.at_least(2, 5)) return "no LL128 before NCCL 2.5";
    if (s.intra == topo::IntraFabric::PcieOnly) return "LL128 needs NVLink";
    if (s.nodes > 1 &&
        (!s.gpudirect_rdma || s.nic_class == NicClass::EfaSrd || s.nic_class == NicClass::Tcp)) {
      return "LL128 across nodes needs GPUDirect RDMA writes";
    }
  }
  if (s.ranks() < 2) return "one rank";
  return "";
}

namespace {

struct Rates {
  double intra = 0;      ///< one GPU's achieved intra-node rate, bytes/s
  double nvls = 0;       ///< achieved in-switch reduction rate per GPU
  double net = 0;        ///< one node's achieved network rate
  double net_hop_s = 0;  ///< one network hop's latency beyond NCCL's constant
};

Rates achieved_rates(const NcclSystem& s, const NcclModelParams& p) {
  Rates r;
  const double intra_eff =
      s.intra == topo::IntraFabric::PcieOnly ? p.pcie_efficiency : p.nvlink_efficiency;
  r.intra = s.gpu_intra_bandwidth.value * intra_eff;
  r.nvls = s.gpu_intra_bandwidth.value * p.nvls_efficiency;
  const int nic = static_cast<int>(s.nic_class);
  r.net = s.nics_per_node * s.nic_bandwidth.value * p.net_efficiency[nic];
  double hop_us = p.nic_latency_us[nic];
  if (!s.gpudirect_rdma) {
    r.net *= p.host_staging_efficiency;
    hop_us += p.host_staging_latency_us;
  } else if (s.nic_class == NicClass::EfaSrd) {
    hop_us += p.gdr_flush_latency_us;  // no RDMA write: GDR receives need a flush read
  }
  r.net_hop_s = hop_us * 1e-6;
  return r;
}

/// Pipeline time: the first unit crosses every hop, the others follow the bottleneck.
/// Returns {time, latency part, bottleneck name}.
struct PipelineTime {
  double time_s;
  double latency_s;
  const char* bottleneck;
};

PipelineTime pipeline(const std::vector<Stage>& stages, double unit, double units, double base_s,
                      double exposed) {
  double path = 0, path_latency = 0, neck = 0;
  const char* neck_name = "latency";
  for (const Stage& st : stages) {
    if (st.hops <= 0) continue;
    path += st.hops * (st.latency_s + unit / st.rate);
    path_latency += st.hops * st.latency_s;
    const double per_unit = unit / st.rate + exposed * st.latency_s;
    if (per_unit > neck) {
      neck = per_unit;
      neck_name = st.name;
    }
  }
  const double total = base_s + path + (units - 1) * neck;
  // Bandwidth-bound when the streaming part outweighs the latencies.
  if ((units - 1) * neck < base_s + path_latency) neck_name = "latency";
  return {total, base_s + path_latency, neck_name};
}

}  // namespace

namespace {

/// Everything one candidate's stages depend on.
struct StageInputs {
  const NcclSystem& sys;
  const NcclModelParams& p;
  sched::Collective coll;
  NcclAlgo algo;
  NcclProto proto;
  int channels;
  double bytes;
  /// Share of the links' rates the channels drive: min(1, channels / searched channels).
  /// NCCL's model is busBw = nChannels x the per-channel rate its search found (anchors.md
  /// 2.1), so fewer channels than the search's leave bandwidth unused; more only duplicate
  /// channels on the same links (smaller units, more payload in flight per NIC).
  double share = 1.0;
};

/// The stages a unit crosses, the data per channel per step, and units per loop.
struct StagePlan {
  std::vector<Stage> stages;
  double per_step = 0;  ///< bytes per channel per step
  double steps_per_loop = 1;
  double net_latency_s = 0;
};

StagePlan plan_stages(const StageInputs& in) {
  const NcclSystem& s = in.sys;
  const NcclModelParams& p = in.p;
  Rates r = achieved_rates(s, p);
  r.intra *= in.share;
  r.net *=
      in.share * (in.algo == NcclAlgo::Ring ? s.fabric.ring_net_share : s.fabric.tree_net_share);
  const int a = idx(in.algo), q = idx(in.proto);
  const int n = s.ranks(), nodes = s.nodes;
  const double nch = in.channels, pe = p.proto_efficiency[q];
  StagePlan plan;
  const double nvl_lat = p.nvlink_latency_us[a][q] * p.nvlink_latency_scale * 1e-6;
  plan.net_latency_s = p.net_latency_us[a][q] * p.net_latency_scale * 1e-6 + r.net_hop_s +
                       s.fabric.extra_net_latency.value;
  // A channel has at most one buffer of payload in flight per network round trip.
  const double window = p.buffer_bytes[q] * pe / (2 * plan.net_latency_s);
  const auto net_rate = [window](double line_rate) { return std::min(line_rate, window); };
  const char* intra_name = s.intra == topo::IntraFabric::PcieOnly ? "PCIe" : "NVLink";
  if (in.algo == NcclAlgo::Ring) {
    const double steps = ring_steps(in.coll, n);
    const double cross = nodes > 1 ? 2.0 * (nodes - 1) : 0;  // NCCL's nInterSteps
    plan.stages.push_back({intra_name, nvl_lat, r.intra * pe / nch, steps - cross});
    if (nodes > 1)
      plan.stages.push_back({"network", plan.net_latency_s, net_rate(r.net * pe / nch), cross});
    const bool bcast = in.coll == sched::Collective::Broadcast;
    plan.per_step = bcast ? in.bytes / nch : in.bytes / (static_cast<double>(n) * nch);
    plan.steps_per_loop = bcast ? 1 : steps;
    return plan;
  }
  if (in.algo == NcclAlgo::Tree) {
    // Each GPU of the intra-node chain sends S up and S down across the two trees.
    plan.stages.push_back(
        {intra_name, nvl_lat, r.intra * pe / nch / 2, 2.0 * (s.gpus_per_node - 1)});
  } else {
    plan.stages.push_back({"NVLS", nvl_lat, r.nvls / nch, 2});
  }
  if (nodes > 1) {
    const double depth = std::ceil(std::log2(nodes));
    // Beyond two nodes, inner tree nodes forward for two children: half the rate per child.
    const double fan = nodes <= 2 ? 1.0 : 2.0;
    plan.stages.push_back(
        {"network", plan.net_latency_s, net_rate(r.net * pe / nch / fan), 2 * depth});
  }
  plan.per_step = in.bytes / nch;
  return plan;
}

}  // namespace

NcclCandidate NcclPredictor::evaluate(sched::Collective c, Bytes bytes, NcclAlgo a,
                                      NcclProto q) const {
  NcclCandidate cand;
  cand.algo = a;
  cand.proto = q;
  cand.why_disabled = disabled_reason(c, a, q);
  cand.enabled = cand.why_disabled.empty();
  if (!cand.enabled) return cand;
  const NcclModelParams& p = params_;
  cand.channels = channels(a);
  const double S = static_cast<double>(std::max<std::int64_t>(bytes.value, 1));
  const double share = std::min(1.0, static_cast<double>(cand.channels) / searched_channels(a));
  const StagePlan plan = plan_stages({system_, p, c, a, q, cand.channels, S, share});
  const double base = (p.base_latency_us[idx(a)][idx(q)] +
                       p.launch_overhead_per_gpu_us * (system_.gpus_per_thread - 1)) *
                      1e-6;
  const double loops = std::max(1.0, std::ceil(plan.per_step / p.chunk_bytes[idx(q)]));
  const double unit = plan.per_step / loops;
  const PipelineTime pt =
      pipeline(plan.stages, unit, loops * plan.steps_per_loop, base, p.step_exposed[idx(q)]);
  double t = pt.time_s;
  cand.bottleneck = pt.bottleneck;
  if (q == NcclProto::LL) {
    const int nodes = system_.nodes;
    const int scale = nodes == 1 ? 0 : (nodes == 2 ? 1 : 2);
    const double cap = p.ll_max_busbw_GBps[system_.arch_row][scale] * 1e9;
    const double capped = base + S * sched::busbw_factor(c, system_.ranks()) / cap;
    if (capped > t) {
      t = capped;
      cand.bottleneck = "LL bandwidth cap";
    }
  }
  cand.time = Seconds(t);
  cand.latency = Seconds(pt.latency_s);
  return cand;
}

Expected<NcclPrediction> NcclPredictor::predict(sched::Collective c, Bytes bytes,
                                                bool explain) const {
  if (bytes.value < 0) return fail(Errc::InvalidArgument, "negative size");
  NcclPrediction out;
  out.bytes = bytes;
  bool found = false;
  for (int a = 0; a < kNumNcclAlgos; ++a) {
    for (int q = 0; q < kNumNcclProtos; ++q) {
      NcclCandidate cand = evaluate(c, bytes, static_cast<NcclAlgo>(a), static_cast<NcclProto>(q));
      if (cand.enabled && (!found || cand.time < out.chosen.time)) {
        out.chosen = cand;
        found = true;
      }
      if (explain) out.candidates.push_back(std::move(cand));
    }
  }
  if (!found) {
    return fail(Errc::Unsupported, "no NCCL algorithm/protocol is enabled for " +
                                       std::string(sched::collective_name(c)) + " on this system");
  }
  const double t = out.chosen.time.value;
  out.algbw_GBps = t > 0 ? static_cast<double>(bytes.value) / t / 1e9 : 0.0;
  out.busbw_GBps = out.algbw_GBps * sched::busbw_factor(c, system_.ranks());
  return out;
}

}  // namespace topotune::algo
