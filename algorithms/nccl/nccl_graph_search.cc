#include "algorithms/nccl/nccl_graph_search.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "algorithms/nccl/nccl_search_tables.h"

namespace topotune::algo {
namespace {

constexpr int R(int ma, int mi, int pa) { return nccl_release_code(ma, mi, pa); }

// floor with a tolerance: NCCL subtracts rounded floats (SUB_ROUND), 6 x 40 fits 240 exactly.
int fl(double x) { return static_cast<int>(std::floor(x + 1e-6)); }

enum class Pattern { Ring, Tree };

struct SearchSpace {
  const NcclNodeView& node;
  bool multi;  // a NET in the communicator
  int max_ch;  // graph->maxChannels
};

int nvlink_channels(const SearchSpace& sp, double s, Pattern p) {
  const NcclNodeView& n = sp.node;
  if (n.gpus == 1) return sp.max_ch;
  if (n.fabric == topo::IntraFabric::PcieOnly) return fl(n.pci_bw / s);
  if (n.fabric == topo::IntraFabric::NvLinkMesh) return fl(n.nvlink_bw / 2 / s);
  // NVSwitch: a ring channel enters and leaves every GPU (across nodes the exit GPU sends to
  // the NIC instead); a tree chain uses g - 1 of g GPUs' links (totalBw x g/(g-1), 2.18.3+).
  if (p == Pattern::Tree) return fl(n.nvlink_bw * n.gpus / (n.gpus - 1) / s);
  return sp.multi ? fl(n.nvlink_bw / (s * (1 - 1.0 / n.gpus))) : fl(n.nvlink_bw / s);
}

int net_channels(const SearchSpace& sp, double s_inter) {
  const NcclNodeView& n = sp.node;
  const int per_net =
      std::min(fl(n.net_bw / s_inter), fl(n.pci_bw / s_inter) * std::max(1, fl(n.gpus_per_net)));
  return n.nets * per_net;
}

int count(const SearchSpace& sp, Pattern p, double s_intra, double s_inter) {
  int c = nvlink_channels(sp, s_intra, p);
  if (sp.multi) c = std::min(c, net_channels(sp, s_inter));
  return std::clamp(c, 0, sp.max_ch);
}

bool dup_channels(int rel, int cc, double bw_intra, int channels) {
  if (rel >= R(2, 18, 3)) return bw_intra >= 25.0 && !(cc > 80 && bw_intra < 50.0 && channels > 4);
  if (rel >= R(2, 16, 0)) return (cc <= 80 && bw_intra >= 25.0) || (cc <= 90 && bw_intra >= 50.0);
  return bw_intra >= 25.0;
}

std::size_t index_at_or_below(const std::vector<double>& speeds, double bw) {
  std::size_t i = 0;
  while (i + 1 < speeds.size() && speeds[i] > bw + 1e-9) ++i;
  return i;
}

// ncclTopoCompute for a ring or tree pattern; min_ch / max_ch as init sets them.
NcclGraph search(const SearchSpace& sp, int rel, Pattern p, int min_ch, double total_bw,
                 double max_bw) {
  const std::vector<double> speeds = nccl_search_speeds(rel, sp.node.cc, sp.multi);
  std::size_t i = 0;
  while (i + 1 < speeds.size() && (speeds[i] > max_bw || speeds[i] * min_ch > total_bw)) ++i;
  NcclGraph best;
  for (;;) {  // pass 1: first solution, then lower speeds while they may still win
    const double s = speeds[i];
    const int n = count(sp, p, s, s);
    if (n >= std::max(1, min_ch) && n * s > best.channels * best.bw_intra + 1e-9) {
      best.channels = n;
      best.bw_intra = best.bw_inter = s;
    }
    if (best.channels > 0 &&
        (best.channels == sp.max_ch || best.channels * best.bw_inter >= total_bw - 1e-9)) {
      break;
    }
    if (i + 1 < speeds.size() && (best.channels == 0 || speeds[i + 1] / best.bw_inter > .49)) {
      ++i;
      continue;
    }
    break;
  }
  if (best.channels == 0) return best;
  if (dup_channels(rel, sp.node.cc, best.bw_intra, best.channels)) {
    const int dup = std::min(2 * best.channels, sp.max_ch);
    const int f = (dup + best.channels - 1) / best.channels;
    best.channels = dup;
    best.bw_intra /= f;
    best.bw_inter /= f;
  }
  // pass 2 with minChannels = the channels found
  std::size_t j = index_at_or_below(speeds, best.bw_inter);
  if (p == Pattern::Ring && rel >= R(2, 19, 3)) {
    while (j > 0 && count(sp, p, speeds[j - 1], speeds[j - 1]) >= best.channels) {
      --j;
      best.bw_intra = best.bw_inter = speeds[j];
    }
  } else if (p == Pattern::Tree) {
    std::size_t k = index_at_or_below(speeds, best.bw_intra);
    while (k > 0 && best.bw_intra < 2 * best.bw_inter &&
           count(sp, p, speeds[k - 1], best.bw_inter) >= best.channels) {
      --k;
      best.bw_intra = speeds[k];
    }
  }
  return best;
}

// The NVLS graph: one head per GPU (single node) or per NIC-local GPU; each head's channel
// costs its speed on every GPU's switch link and twice on the head's (9 x s <= NVLink bw).
NcclGraph search_nvls(const NcclNodeView& n, int rel, bool multi) {
  NcclGraph g;
  g.channels = n.gpus;
  const std::vector<double> intra = nccl_search_speeds(rel, n.cc, false);
  g.bw_intra = intra.back();
  for (double s : intra) {
    if ((n.gpus + 1) * s <= n.nvlink_bw + 1e-6) {
      g.bw_intra = s;
      break;
    }
  }
  g.bw_inter = g.bw_intra;
  // pass 2 (2.19.3+) raises bwInter while below 2 x bwIntra: bounded by the NIC across
  // nodes; a single node has no NIC, so it climbs to the top of the intra array.
  if (multi) {
    const std::vector<double> inter = nccl_search_speeds(rel, n.cc, true);
    const double cap = std::min(n.net_bw, n.pci_bw);
    const double limit = rel >= R(2, 19, 3) ? std::min(cap, 2 * g.bw_intra) : cap;
    g.bw_inter = inter[index_at_or_below(inter, limit)];
  } else if (rel >= R(2, 19, 3)) {
    for (double s : intra) {
      if (s > g.bw_inter && s < 2 * g.bw_intra) {
        g.bw_inter = s;
        break;  // the array is descending: the first is the highest below 2 x bwIntra
      }
    }
  }
  return g;
}

int nvls_channel_count(const NcclNodeView& n, int rel, bool multi) {
  if (n.cc >= 100 && rel >= R(2, 25, 0)) {
    if (multi) return 32;                 // NVLS_NCHANNELS_SM100
    return rel >= R(2, 27, 3) ? 24 : 32;  // NVLS_NCHANNELS_SM100_NVL (2.27.3)
  }
  return 16;  // NVLS_NCHANNELS (SM90) in every release
}

}  // namespace

NcclGraphs nccl_search(const NcclNodeView& node, int release, int nodes, bool nvls, bool gdr,
                       double latency_inter_us) {
  const bool multi = nodes > 1;
  const int max_channels = nccl_max_channels(release);
  double total = node.fabric == topo::IntraFabric::PcieOnly ? node.pci_bw : node.nvlink_bw;
  const double max_intra =
      node.fabric == topo::IntraFabric::NvLinkMesh ? node.nvlink_bw / 3 : total;
  double max_bw = multi ? std::min(node.net_bw, node.pci_bw) : max_intra;
  if (!multi && node.gpus == 1) max_bw = total = 5000.0;  // LOC_BW
  NcclGraphs out;
  const SearchSpace ring_space{node, multi, max_channels / 2};
  out.ring = search(ring_space, release, Pattern::Ring, 1, total, max_bw);
  const int tree_min = release < R(2, 18, 0) ? 1 : out.ring.channels;
  const SearchSpace tree_space{node, multi, std::max(1, out.ring.channels)};
  const double tree_total =
      node.gpus > 1 && release >= R(2, 18, 3) ? total * node.gpus / (node.gpus - 1) : total;
  out.tree = search(tree_space, release, Pattern::Tree, tree_min, tree_total, max_bw);
  if (out.tree.channels == 0) out.tree = out.ring;
  for (NcclGraph* g : {&out.ring, &out.tree}) {
    g->intra_nvlink = node.fabric != topo::IntraFabric::PcieOnly;
    g->inter_local = gdr;  // without GPUDirect RDMA the NIC is beyond NCCL_NET_GDR_LEVEL
    g->latency_inter_us = multi ? latency_inter_us : 0.0;
  }
  // A tree on nodes with one GPU per NIC switch falls back to the simple TREE pattern (pass 1's
  // "simpler tree" for ccMin >= 90), which tuning.cc penalises by 0.85 (2.18.3+).
  out.tree.tree_pattern = multi && node.gpus_per_net <= 1 && node.cc >= 90;
  const int searched = std::max(1, std::min(out.ring.channels, out.tree.channels));
  int c = std::min(max_channels, 2 * searched);  // Postset duplication
  const bool sm90_rule = release >= R(2, 18, 0) && node.cc >= 90 &&
                         (node.cc == 90 || release >= R(2, 25, 0)) && multi &&
                         out.ring.bw_intra > 45.0;
  if (sm90_rule) {
    if (release >= R(2, 20, 3)) {
      if (c < 16) c *= 2;
    } else if (2 * c <= max_channels) {
      c *= 2;
    }
  }
  out.coll_channels = c;
  if (nvls) {
    out.nvls = search_nvls(node, release, multi);
    out.nvls.latency_inter_us = multi ? latency_inter_us : 0.0;
    out.nvls_channels = nvls_channel_count(node, release, multi);
    // 2.20.3 .. 2.28.2: comm->nChannels is raised to the NVLS channel count.
    if (release >= R(2, 20, 3) && release < R(2, 28, 3)) c = std::max(c, out.nvls_channels);
  }
  out.comm_channels = c;
  return out;
}

}  // namespace topotune::algo
