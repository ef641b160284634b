#include "algorithms/nccl/nccl_tuning_model.h"

#include <algorithm>
#include <cmath>

#include "algorithms/nccl/nccl_tuning_tables.h"

// Transcribed from NVIDIA/nccl src/graph/tuning.cc, release by release (the tags in comments
// are where a rule changed; nccl_tuning_tables.cc holds the constants).
namespace topotune::algo {
namespace {

constexpr int R(int ma, int mi, int pa) { return nccl_release_code(ma, mi, pa); }
constexpr NcclAlgo kAlgos[] = {NcclAlgo::Ring, NcclAlgo::Tree, NcclAlgo::Nvls, NcclAlgo::NvlsTree,
                               NcclAlgo::Pat};
constexpr NcclProto kProtos[] = {NcclProto::LL, NcclProto::LL128, NcclProto::Simple};

int ai(NcclAlgo a) { return static_cast<int>(a); }
int pi(NcclProto p) { return static_cast<int>(p); }
int log2i(long long n) {
  int l = 0;
  while (n >>= 1) ++l;
  return l;
}

template <class T>
bool allowed(const std::vector<T>& v, T x) {
  return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
}

// init.cc: graphs[NCCL_ALGO_PAT] is the tree graph (v2.23.4-1 on).
const NcclGraph& graph_of(const NcclGraphs& g, NcclAlgo a) {
  if (a == NcclAlgo::Ring) return g.ring;
  if (a == NcclAlgo::Tree || a == NcclAlgo::Pat) return g.tree;
  return g.nvls;
}

int steps_of(sched::Collective c, int n) {
  if (c == sched::Collective::Allreduce) return 2 * (n - 1);
  if (c == sched::Collective::Broadcast) return n;
  return n - 1;
}

// The bus bandwidth tuning.cc computes for (a, p), before the bus-to-algorithm conversion.
double bus_bandwidth(const NcclTuningInputs& in, sched::Collective c, NcclAlgo a, NcclProto p) {
  const int rel = in.release, nodes = in.nodes;
  const NcclGraph& g = graph_of(in.graphs, a);
  const int arch = nccl_arch_index(rel, in.cc);
  const int scale = nodes <= 2 ? nodes - 1 : 2;
  const int ll_row = nodes == 1 ? arch : (in.amd_cpu ? 1 : 0);
  const double ll_max = nccl_ll_max_bw(rel, ll_row, scale);
  const double ppn = static_cast<double>(in.ranks) / nodes;
  double bw = nodes <= 2 ? g.bw_intra : g.bw_inter;
  if (a == NcclAlgo::Nvls || a == NcclAlgo::NvlsTree) {
    if (rel >= R(2, 28, 0)) {  // v2.28.3-1: NVLS busBW per channel with nvlsEfficiency
      if (g.channels < 2) return 0;
      // Allreduce pipelines two operations (x2); all-gather and reduce-scatter move the
      // (ppn-1)/ppn of the buffer that is not the GPU's own.
      const double pipe = c == sched::Collective::Allreduce ? 2.0 : (ppn - 1) / ppn;
      const double intra =
          g.bw_intra * nccl_nvls_efficiency(arch) * (g.channels - 1) / g.channels * pipe;
      const double inter = g.bw_inter * (nodes <= 2 && a == NcclAlgo::NvlsTree ? 2 : 1);
      const double cap =
          a == NcclAlgo::NvlsTree ? nccl_per_channel_max_nvlstree_bw(rel, arch, scale) : 1e30;
      bw = std::min({intra, inter, cap});
    } else if (rel >= R(2, 19, 0)) {
      bw = a == NcclAlgo::Nvls ? std::min(g.bw_intra, g.bw_inter)
                               : std::min(g.bw_intra, nodes <= 2 ? g.bw_inter : g.bw_inter / 2);
    }
  }
  double bus = g.channels * bw;
  if (rel >= R(2, 10, 0) && rel < R(2, 18, 0) && arch == 1) bus = std::min(bus, 235.0);
  if (rel >= R(2, 17, 0) && rel < R(2, 18, 0) && arch == 2) bus = std::min(bus, 370.0);
  if (a == NcclAlgo::Ring && p == NcclProto::LL) {
    if (rel < R(2, 21, 0)) {
      const bool quarter = nodes > 1 || c == sched::Collective::Allreduce;
      bus *= quarter ? 0.25 : 1.0 / 3.0;
      if (rel >= R(2, 8, 0)) bus = std::min(ll_max, bus);
    } else {
      bus = std::min(ll_max, bus * 0.5);  // v2.21.5-1
    }
  }
  if (a == NcclAlgo::Ring && p == NcclProto::LL128) {
    const double f = rel >= R(2, 23, 0) || ppn >= 2 ? 0.92 : 0.7;
    bus = std::min(bus * f, g.channels * nccl_per_channel_max_ll128_bw(rel, arch, scale, false));
  }
  if (a == NcclAlgo::Tree) {
    if (rel < R(2, 8, 0)) {
      const bool big = arch == 1 && p == NcclProto::LL128;
      bus = std::min(bus * .9, nodes > 2 ? (big ? 105.0 : 80.0) : (big ? 130.0 : 110.0));
    } else {
      bus = std::min(bus * .92, g.channels * nccl_per_channel_max_tree_bw(rel, arch, scale));
    }
    if (p == NcclProto::LL) bus = rel < R(2, 8, 0) ? bus / 3.8 : std::min(bus / 3.8, ll_max);
    if (p == NcclProto::LL128) {
      const double f = nodes == 1 ? 7.0 / 9.0 : (rel < R(2, 10, 0) ? 0.915 : 120.0 / 128.0);
      double cap = g.channels * nccl_per_channel_max_ll128_bw(rel, arch, scale, true);
      if (rel < R(2, 8, 0)) cap *= 7.0 / 9.0;
      bus = std::min(bus * f, cap);
    }
    if (rel >= R(2, 18, 3) && g.tree_pattern) bus *= .85;
  }
  if (a == NcclAlgo::Pat) bus *= rel < R(2, 24, 0) ? .85 : .75;  // v2.23.4-1, v2.24.3-1
  return bus;
}

double bus_to_alg(const NcclTuningInputs& in, sched::Collective c, NcclAlgo a) {
  const int rel = in.release, n = in.ranks, nodes = in.nodes;
  if (a == NcclAlgo::Ring) return static_cast<double>(n) / steps_of(c, n);
  // From v2.23.4-1 only Ring's all-gather/reduce-scatter bandwidth is converted (tuning.cc:
  // `if (!(a != NCCL_ALGO_RING && (coll == AllGather || coll == ReduceScatter)))`); before,
  // NVLS's was scaled by 5/6 like its allreduce (v2.19.3-1 .. v2.22.3-1).
  const bool gather = c == sched::Collective::Allgather || c == sched::Collective::ReduceScatter;
  if (gather && rel >= R(2, 23, 0)) return 1.0;
  if (a == NcclAlgo::Tree) return 0.5;
  if (rel >= R(2, 28, 0)) return static_cast<double>(n) / steps_of(c, n);  // v2.28.3-1
  const double tree_old = nodes > 1 ? .70 * nodes / (2.0 * (nodes - 1)) : 5.0 / 6.0;
  if (a == NcclAlgo::NvlsTree && rel < R(2, 19, 0)) return tree_old;  // v2.18.x
  if (a == NcclAlgo::Nvls && rel < R(2, 18, 0)) return .75;           // v2.17.1-1
  return 5.0 / 6.0;
}

double inter_latency(const NcclTuningInputs& in, NcclAlgo a, NcclProto p) {
  const int rel = in.release;
  const NcclGraph& g = graph_of(in.graphs, a);
  const double hw_net = nccl_hw_latency_us(rel, NcclHw::Net, a, p);
  if (rel < R(2, 12, 0)) return hw_net;
  if (rel < R(2, 18, 0)) return g.latency_inter_us > 0 ? g.latency_inter_us : hw_net;
  const bool ppn1 = in.ranks == in.nodes;
  double lat =
      rel >= R(2, 23, 0) && ppn1 ? nccl_hw_latency_us(rel, NcclHw::Net, NcclAlgo::Tree, p) : hw_net;
  lat += g.latency_inter_us;
  if (p == NcclProto::Simple) lat += g.latency_inter_us;  // the GPUDirect flush
  return lat;
}

double latency(const NcclTuningInputs& in, sched::Collective c, NcclAlgo a, NcclProto p) {
  const int rel = in.release, n = in.ranks, nodes = in.nodes;
  const NcclGraph& g = graph_of(in.graphs, a);
  const NcclHw intra_hw = g.intra_nvlink ? NcclHw::NvLink : NcclHw::Pci;
  double intra = nccl_hw_latency_us(rel, intra_hw, a, p);
  const double inter = inter_latency(in, a, p);
  double lat = nccl_base_latency_us(rel, a, p);
  if (rel < R(2, 18, 0) && nodes > 1 && p == NcclProto::LL) intra *= 1.8;
  const int steps = steps_of(c, n);
  switch (a) {
    case NcclAlgo::Ring: {
      if (c == sched::Collective::Broadcast) {  // sameChannels: one hop's latency
        return lat + nccl_hw_latency_us(rel, nodes == 1 ? intra_hw : NcclHw::Net, a, p);
      }
      if (rel >= R(2, 18, 0) && nodes > 1) {  // inter-node rings launch nsteps net overheads
        const double overhead = (in.amd_cpu ? 2.0 : 1.0) * (p == NcclProto::Simple ? 3 : 1);
        intra = std::max(intra, overhead);
      }
      int inter_steps = 0;
      if (nodes > 1) {
        const bool ar = c == sched::Collective::Allreduce;
        if (rel >= R(2, 12, 0) && rel < R(2, 23, 0) && ar) {
          inter_steps = 2 * nodes;  // v2.12.7-1 .. v2.22.3-1 counted 2 x nNodes
        } else {
          inter_steps = ar ? 2 * (nodes - 1) : nodes - 1;
        }
      }
      return lat + (steps - inter_steps) * intra + inter_steps * inter;
    }
    case NcclAlgo::Tree:
      return lat + 2 * ((n / nodes - 1) * intra + log2i(nodes) * inter);
    case NcclAlgo::Nvls:
      if (rel < R(2, 19, 0)) {
        return lat + (nodes > 1 ? nccl_hw_latency_us(rel, NcclHw::Net, a, p) : 0.0);
      }
      return intra + (nodes > 1 ? inter : 0.0);
    case NcclAlgo::NvlsTree:
      if (rel < R(2, 19, 0))
        return lat + 2 * (nodes - 1) * nccl_hw_latency_us(rel, NcclHw::Net, a, p);
      return lat + intra + 2 * log2i(nodes) * inter;
    case NcclAlgo::Pat:
      // "Base time" 8 us (in baseLatencies from v2.28.3-1), "Log latency", and "Still a
      // linear part; hopefully we'll manage to remove it at some point" (tuning.cc).
      return 8.0 + log2i(nodes) * (inter / 3.5) + n * 2.8;
  }
  return lat;
}

bool ll128_default(const NcclTuningInputs& in, const NcclGraph& g) {
  const int rel = in.release, cc = in.cc;
  if (rel < R(2, 5, 0) || g.channels == 0) return false;
  if (rel < R(2, 15, 0)) return g.inter_local && g.intra_nvlink && (cc == 70 || cc == 80);
  // typeInter <= PXB (or PXN on sm90, 2.17.1+): inter_local covers both for these nodes.
  // The compute capabilities: 70, 80, 90 to v2.24; 100 and 120 added in v2.25.1-1; every one
  // from 70 up from v2.27.3-1 (so sm_103, GB300/B300, only then).
  bool arch = cc == 70 || cc == 80 || cc == 90;
  if (rel >= R(2, 27, 0)) {
    arch = cc >= 70;
  } else if (rel >= R(2, 25, 0)) {
    arch = arch || cc == 100 || cc == 120;
  }
  return g.inter_local && g.intra_nvlink && arch;
}

const char* disabled(const NcclTuningInputs& in, sched::Collective c, NcclAlgo a, NcclProto p) {
  const int rel = in.release;
  const bool nvls_family = a == NcclAlgo::Nvls || a == NcclAlgo::NvlsTree;
  const bool gather = c == sched::Collective::Allgather || c == sched::Collective::ReduceScatter;
  // tuning.cc: broadcast and reduce run Ring only; all-gather and reduce-scatter Ring, NVLS
  // (from v2.19.3-1), PAT (from v2.23.4-1) and CollNetDirect (not modelled: no SHARP plugin).
  if (c == sched::Collective::Broadcast && a != NcclAlgo::Ring) return "only Ring runs it";
  if (a == NcclAlgo::Pat) {
    if (!gather) return "PAT runs all-gather and reduce-scatter only";
    if (rel < R(2, 23, 0)) return "no PAT before NCCL 2.23.4";
  }
  if (gather && (a == NcclAlgo::Tree || a == NcclAlgo::NvlsTree)) {
    return "all-gather/reduce-scatter run Ring, NVLS, PAT or CollNet";
  }
  if (gather && a == NcclAlgo::Nvls && rel < R(2, 19, 0)) {
    return "no NVLS all-gather/reduce-scatter before NCCL 2.19";
  }
  if (!allowed(in.algos, a)) return "excluded by NCCL_ALGO";
  if (!in.protos.empty() && !allowed(in.protos, p)) return "excluded by NCCL_PROTO";
  if (a == NcclAlgo::Tree && rel < R(2, 4, 0)) return "no Tree before NCCL 2.4";
  if (nvls_family && p != NcclProto::Simple) return "NVLS runs Simple only";
  if (nvls_family && !in.nvls_support) return "no NVLS (needs NVSwitch gen3+, SM90+, > 2 GPUs)";
  if (a == NcclAlgo::Nvls && rel < R(2, 17, 0)) return "no NVLS before NCCL 2.17";
  if (a == NcclAlgo::NvlsTree && rel < R(2, 18, 0)) return "no NVLSTree before NCCL 2.18";
  if (a == NcclAlgo::Nvls && in.nodes > 1) return "multi-node NVLS needs CollNet";
  // enqueue.cc (v2.25.1-1 on): NVLS all-gather/reduce-scatter for at most NCCL_MAX_NVLS_ARITY
  // (32) ranks per node, which leaves out a 72-GPU NVLink domain.
  if (gather && a == NcclAlgo::Nvls && rel >= R(2, 25, 0) && in.ranks / in.nodes > 32) {
    return "NVLS all-gather/reduce-scatter takes at most 32 GPUs per node";
  }
  if (a == NcclAlgo::NvlsTree && in.nodes == 1) return "NVLSTree is multi-node only";
  if (a == NcclAlgo::Pat) {  // ncclPatEnable (NCCL_PAT_ENABLE unset), tuning.cc
    if (p != NcclProto::Simple) return "PAT runs Simple only";
    if (in.ranks != in.nodes) return "PAT needs one GPU per node";
    if (in.net_device_offload) return "PAT does not run over a net plugin's device offload";
  }
  if (graph_of(in.graphs, a).channels == 0) return "the search found no channel";
  if (p == NcclProto::LL128 && in.protos.empty() && !ll128_default(in, graph_of(in.graphs, a))) {
    return "LL128 off by default here (needs NVLink and the NIC within PXB)";
  }
  if (in.ranks < 2) return "one rank";
  return nullptr;
}

}  // namespace

int nccl_arch_index(int release, int cc) {
  const int arch = cc >= 100 ? 3 : cc >= 90 ? 2 : cc >= 80 ? 1 : 0;
  // Before v2.15.1-1 compCapIndex was Ampere only for exactly sm80, else the Volta row.
  if (release < R(2, 15, 0) && arch >= 2) return 0;
  return arch;
}

NcclTuningTable nccl_tune(const NcclTuningInputs& in, sched::Collective c) {
  NcclTuningTable t;
  for (NcclAlgo a : kAlgos) {
    for (NcclProto p : kProtos) {
      const char* why = disabled(in, c, a, p);
      t.why_disabled[ai(a)][pi(p)] = why;
      if (why != nullptr) continue;
      t.bandwidth_GBps[ai(a)][pi(p)] = bus_bandwidth(in, c, a, p) * bus_to_alg(in, c, a);
      t.latency_us[ai(a)][pi(p)] = latency(in, c, a, p);
    }
  }
  return t;
}

double nccl_algo_time_us(const NcclTuningInputs& in, const NcclTuningTable& t, sched::Collective c,
                         NcclAlgo a, NcclProto p, double bytes) {
  double bw = t.bandwidth_GBps[ai(a)][pi(p)];
  double lat = t.latency_us[ai(a)][pi(p)];
  if (bw <= 0) return -1;
  const int rel = in.release;
  const auto b = static_cast<long long>(bytes);
  const int log_size = b >= 64 ? log2i(b >> 6) : -1;
  const bool ar = c == sched::Collective::Allreduce;
  if (a == NcclAlgo::Tree && ar) bw *= nccl_tree_correction(rel, p, log_size);
  if (a == NcclAlgo::NvlsTree && ar && rel >= R(2, 29, 0) && in.cc >= 100) {
    bw *= nccl_tree_correction(rel, p, log_size);  // v2.29.2-1, x86 hosts
  }
  if (a == NcclAlgo::Ring && p == NcclProto::Simple && in.nodes > 1 && ar) {
    if (rel < R(2, 18, 0)) {  // v2.7.3-1 .. v2.17.1-1
      if (bytes >= in.ranks / 16.0 * 65536) lat *= (rel < R(2, 17, 0) || in.cc < 90) ? 1.9 : 1.5;
    } else if (bytes / (static_cast<double>(in.graphs.comm_channels) * in.ranks) >= 64) {
      lat *= in.cc < 80 ? 1.9 : 1.4;  // v2.18.1-1: the plateau effect of the ring
    }
  }
  return lat + bytes / (1000 * bw);
}

}  // namespace topotune::algo
