#include "algorithms/nccl/nccl_physical_time.h"

#include <algorithm>
#include <cmath>

#include "algorithms/nccl/nccl_tuning_tables.h"

namespace topotune::algo {
namespace {

// The shape of the physical latencies and the per-channel engine rates are NCCL's own tables
// of its newest modeled release: the hardware does not change with the release that runs.
constexpr int kShape = kLatestModeledRelease;

constexpr double kPayload[kNumNcclProtos] = {0.5, 120.0 / 128.0, 1.0};  // LL, LL128, Simple
constexpr double kInf = 1e30;

int pi(NcclProto p) { return static_cast<int>(p); }

/// Everything the algorithm formulas share for one call.
struct Context {
  const NcclSystem& sys;
  const NcclModelParams& prm;
  const NcclLaunchInputs& launch;
  sched::Collective coll;
  NcclAlgo algo;
  NcclProto proto;
  int nc;  // channels launched
  double bytes;
  double S;            // bytes / 1e3: with GB/s it gives microseconds
  double b_nvl;        // one GPU's NVLink (or PCIe), achieved, GB/s
  double b_net;        // one node's NICs, achieved, GB/s
  double b_simple_ch;  // one Simple channel's copy rate, GB/s
  double l_nvl;        // one NVLink hop, us
  double l_net;        // one network hop, us
  double t0;           // launch and base latency, us
  int scale;           // NCCL's table scale: 0 one node, 1 two, 2 more
  int depth;           // network tree depth, ceil(log2 nodes)
};

Context make_context(const NcclSystem& s, const NcclModelParams& prm, const NcclLaunchInputs& l,
                     sched::Collective c, NcclAlgo a, NcclProto p, int nc, double bytes) {
  Context x{s, prm, l, c, a, p, std::max(1, nc), bytes, std::max(bytes, 1.0) / 1e3, 0, 0,
            0, 0,   0, 0, 0, 0};
  const int nodes = s.nodes;
  const double pe = kPayload[pi(p)];
  const bool pcie = s.intra == topo::IntraFabric::PcieOnly;
  x.b_nvl = s.gpu_intra_bandwidth.gbps_bytes() *
            (pcie ? prm.pcie_efficiency : prm.nvlink_efficiency) * pe;
  const int cls = static_cast<int>(s.nic_class);
  const double share = a == NcclAlgo::Ring ? s.fabric.ring_net_share : s.fabric.tree_net_share;
  x.b_net = s.nics_per_node * s.nic_bandwidth.gbps_bytes() * net_efficiency_of(prm, s.nic_class) *
            pe * share;
  if (!s.gpudirect_rdma && nodes > 1) x.b_net *= prm.host_staging_efficiency;
  x.b_simple_ch = prm.ring_simple_engine * nccl_per_channel_max_tree_bw(kShape, s.arch_row, 0);
  const NcclAlgo shape = a == NcclAlgo::Ring ? NcclAlgo::Ring : NcclAlgo::Tree;
  x.l_nvl = prm.nvlink_latency_scale * nccl_hw_latency_us(kShape, NcclHw::NvLink, shape, p);
  x.l_net = prm.net_latency_scale * nccl_hw_latency_us(kShape, NcclHw::Net, shape, p) +
            prm.nic_latency_us[cls] + s.fabric.extra_net_latency.us();
  if (!s.gpudirect_rdma) x.l_net += prm.host_staging_latency_us;
  x.t0 = prm.base_latency_scale * nccl_base_latency_us(kShape, shape, p) +
         prm.launch_overhead_per_gpu_us * (s.gpus_per_thread - 1);
  x.scale = nodes <= 1 ? 0 : (nodes == 2 ? 1 : 2);
  x.depth = nodes > 1 ? static_cast<int>(std::ceil(std::log2(nodes))) : 0;
  return x;
}

double ll_engine(const Context& x) {
  const int row = x.sys.nodes == 1 ? x.sys.arch_row : (x.sys.amd_cpu ? 1 : 0);
  return x.prm.ll_engine * nccl_ll_max_bw(kShape, row, x.scale) * std::min(1.0, x.nc / 8.0);
}

// Runtime channels are twice the searched ones (Postset); NCCL's tables are per searched one.
double searched(const Context& x) { return std::max(x.nc / 2.0, 0.5); }

// The pace of a Simple ring across GPUDirect-TCPX. The plugin's socket thread, after a pass
// over its sockets that made no progress while a zero-copy send awaits its completion (the
// receiver's ACK), sleeps NCCL_GPUDIRECTTCPX_TX_COMPLETION_NANOSLEEP (src/net_tcpx.cc
// persistentSocketThread, trySleep), stretched by Linux's timer slack; GCP's setups set 1 us,
// so the thread sleeps right after each small send and the next one, posted meanwhile, waits
// for it to wake. The proxy sends a slice at a time (NCCL_STEPS/4 steps for all three
// collectives, src/include/collectives.h), so a channel's ring step costs at least one sleep
// per slice it moves; large slices keep the thread busy and the volume outlasts the pace.
bool tcpx_sleeps(const Context& x) {
  return x.sys.nodes > 1 && x.sys.nic_class == NicClass::Tcpx && x.proto == NcclProto::Simple;
}

double tcpx_sleep_pace_us(const Context& x, int steps) {
  constexpr double kSliceSteps = 2;  // NCCL_STEPS / 4
  const double slice = nccl_step_bytes(x.launch, NcclProto::Simple) * kSliceSteps;
  const double slices = std::max(1.0, std::ceil(x.bytes / (x.nc * x.sys.ranks() * slice)));
  return steps * slices * x.prm.tcpx_tx_sleep_us;
}

// The pace of an LL128 ring that crosses the network: every step of a channel passes through
// the GPU at its node's edge one after another, and there a step is store-and-forward through
// NCCL's proxy thread: the GPU writes the whole step, fences at system scope and posts its tail
// to host memory (src/device/prims_ll128.h postSend; __threadfence_system on sm_90+ from
// v2.17.1-1, __threadfence before and below sm_90); the proxy, one thread serving all of the
// GPU's network connections one action per pass, notices it, sends it and tests it
// (src/transport/net.cc sendProxyProgress, v2.29.2-1). A channel's steps: n-1 per loop for
// all-gather and reduce-scatter, 2(n-1) for allreduce, and a loop moves nc x n chunks of one
// step (LL128 chunk 576,000 bytes of data; src/enqueue.cc calcCollChunking). LL skips it (the
// proxy sends LL lines as they land), Simple's steps are long enough to carry their own time.
// The step time is the NIC class's: the proxy posts and tests each step through that class's
// network plugin (IB verbs, libfabric's EFA provider, ...), whose costs differ.
double ring_net_pace_us(const Context& x, int steps) {
  if (tcpx_sleeps(x)) return tcpx_sleep_pace_us(x, steps);
  const bool fenced = x.sys.arch_row >= 2 && x.launch.release >= nccl_release_code(2, 17, 1);
  if (x.sys.nodes <= 1 || x.proto != NcclProto::LL128 || !fenced) {
    return 0;
  }
  const double chunk = nccl_step_bytes(x.launch, NcclProto::LL128) * 120 / 128;  // its data
  const double loops = std::max(1.0, std::ceil(x.bytes / (x.nc * x.sys.ranks() * chunk)));
  return steps * loops * x.prm.ring_net_step_us[static_cast<int>(x.sys.nic_class)];
}

// NCCL 2.8.3-1's LL128 ceilings per collective (src/graph/tuning.cc ll128MaxBwPerCh, GB/s a
// channel: Broadcast 18.8, Reduce 12.0, AllGather 18.3, ReduceScatter 15.2, AllReduce 16.9),
// as rates relative to allreduce's, whose runs fit the ring LL128 engine: a reduce-scatter
// step loads, reduces and stores, an all-gather step copies, and an allreduce ring is one of
// each (the harmonic mean of 15.2 and 18.3, 16.6, is allreduce's 16.9). From v2.10.3-1 NCCL
// keeps one ceiling for all collectives; the hardware did not stop reducing.
double ll128_collective_rate(sched::Collective c) {
  switch (c) {
    case sched::Collective::Allgather:
      return 18.3 / 16.9;
    case sched::Collective::ReduceScatter:
      return 15.2 / 16.9;
    case sched::Collective::Broadcast:
      return 18.8 / 16.9;
    case sched::Collective::Allreduce:
      return 1.0;
  }
  return 1.0;
}

NcclPhysicalTime ring(const Context& x) {
  const int n = x.sys.ranks(), nodes = x.sys.nodes;
  const bool ar = x.coll == sched::Collective::Allreduce;
  // The bytes through every GPU per byte of the buffer are nccl-tests' busbw factor, which is
  // defined as exactly that (2(n-1)/n for allreduce, (n-1)/n for allgather, 1 for broadcast).
  const double volume = sched::busbw_factor(x.coll, n) * x.S;
  double engine = x.nc * x.b_simple_ch;
  if (x.proto == NcclProto::LL128) {
    engine = x.prm.ring_ll128_engine * searched(x) *
             nccl_per_channel_max_ll128_bw(kShape, x.sys.arch_row, x.scale, false) * 0.92 *
             ll128_collective_rate(x.coll);
  } else if (x.proto == NcclProto::LL) {
    engine = ll_engine(x);
  }
  double bw = std::min(engine, x.b_nvl);
  const char* neck = engine < x.b_nvl ? "engine" : "NVLink";
  if (nodes > 1 && x.b_net < bw) {
    bw = x.b_net;
    neck = "network";
  }
  const int steps = ar ? 2 * (n - 1) : n - 1;
  // The slowest chunk's path: n-1 consecutive links (2(n-1) for allreduce) of a ring of n links,
  // one of them leaving each node. With g GPUs per node some chunk's path skips only NVLink
  // links: the one link n-1 hops skip, the two 2(n-1) hops skip twice (both NVLink takes g >= 3).
  // NCCL's tuning.cc counts nodes-1 and 2(nodes-1) (nInterSteps), its estimate, not the path.
  int inter = 0;
  if (nodes > 1) {
    const int g = x.sys.gpus_per_node;
    inter = ar ? (g == 1   ? 2 * (nodes - 1)
                  : g == 2 ? 2 * nodes - 1
                           : 2 * nodes)
               : (g == 1 ? nodes - 1 : nodes);
  }
  const double lat = x.t0 + (steps - inter) * x.l_nvl + inter * x.l_net;
  // The pace replaces the hops and the volume rather than adding to them: the hop latency is
  // what a network step's service is made of, and the data moves while the proxy cycles.
  double body = lat - x.t0 + volume / bw;
  const char* label = volume / bw < lat ? "latency" : neck;
  const double pace = ring_net_pace_us(x, steps);
  if (pace > body) {
    body = pace;
    label = tcpx_sleeps(x) ? "TCPX sleep" : "proxy";
  }
  return {x.t0 + body, lat, label};
}

NcclPhysicalTime tree(const Context& x) {
  const int g = x.sys.gpus_per_node, nodes = x.sys.nodes;
  double engine = 0;
  if (x.proto == NcclProto::Simple) {
    engine = x.prm.tree_simple_engine * searched(x) *
             nccl_per_channel_max_tree_bw(kShape, x.sys.arch_row, x.scale) * 0.92;
  } else if (x.proto == NcclProto::LL128) {
    engine = x.prm.tree_ll128_engine * searched(x) *
             nccl_per_channel_max_ll128_bw(kShape, x.sys.arch_row, x.scale, true) *
             (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0);
  } else {
    engine = ll_engine(x);
  }
  double bw = std::min(engine / 2.0, g > 1 ? x.b_nvl / 2.0 : kInf);
  const char* neck = engine / 2.0 <= bw ? "engine" : "NVLink";
  const double chunk =
      std::min(nccl_tree_chunk_bytes(x.launch, x.proto, x.bytes, x.nc), x.bytes / x.nc) / 1e3;
  if (nodes > 1) {
    const double net = x.b_net / (nodes <= 2 ? 1.0 : 2.0);
    // NCCL_STEPS (8) pipeline units in flight per channel and network round trip
    const double window = x.nc * x.prm.net_window * 8 * chunk / (2 * x.l_net);
    if (net < bw) bw = net, neck = "network";
    if (window < bw) bw = window, neck = "window";
  }
  const double lat = x.t0 + 2 * ((g - 1) * x.l_nvl + x.depth * x.l_net);
  double t = lat + x.S / bw;
  if (x.proto == NcclProto::Simple) {
    // Store-and-forward of one chunk along the chain and the tree, beyond the one unit the
    // bandwidth term already counts, at each hop's per-channel stream rate.
    const double r_nvl = std::min(x.b_simple_ch / 2.0, x.b_nvl / (2.0 * x.nc));
    const double r_net = nodes > 1 ? std::min(x.b_simple_ch / 2.0, x.b_net / x.nc) : kInf;
    t += 2 * ((g - 1) * chunk / r_nvl + x.depth * chunk / r_net) - chunk * x.nc / bw;
  }
  return {t, lat, x.S / bw < lat ? "latency" : neck};
}

NcclPhysicalTime nvls(const Context& x) {
  // NCCL's nvlsEfficiency (v2.28.3-1: Hopper 0.85, Blackwell 0.74) scales the shared
  // in-switch reduction efficiency between GPU generations.
  const double gen = x.sys.arch_row >= 3 ? 0.74 / 0.85 : 1.0;
  const double eff =
      x.algo == NcclAlgo::NvlsTree ? x.prm.nvls_tree_efficiency : x.prm.nvls_efficiency;
  double reduce = x.sys.gpu_intra_bandwidth.gbps_bytes() * eff * gen;
  if (x.coll != sched::Collective::Allreduce) {
    // All-gather and reduce-scatter over NVLS (one node): each GPU receives the whole buffer
    // (all-gather) or sends it (reduce-scatter), against (n-1)/n of it for Ring (NVIDIA/nccl
    // issue #1083, S. Jeaugey: "NVLS: Send S/N, Receive S" for allgather, "Send S, Receive
    // S/N" for reduce-scatter); that one direction of the GPU's NVLink is the limit.
    reduce = x.b_nvl;
  }
  double bw = std::min(reduce, x.nc * x.b_simple_ch);
  const char* neck = reduce <= bw ? "NVLS" : "engine";
  double lat = x.t0 + x.prm.nvls_latency_us;
  int hops = 2;  // reduce into the switch, multicast out
  const double chunk =
      std::min(nccl_nvls_chunk_bytes(x.launch, x.algo, x.bytes, x.nc), x.bytes / x.nc) / 1e3;
  if (x.algo == NcclAlgo::NvlsTree && x.sys.nodes > 1) {
    // The network part of NVLSTree is a tree moving Simple chunks: its hops cost what a Tree/
    // Simple network hop costs (x.l_net). NCCL's own NVLSTree network constant (20.9 us from
    // v2.28.9-1, against 14 for Tree/Simple) steers its choice; taken as physical it made
    // every 2-node NVLSTree row of 1-8 MiB ~45 % slow (leave-one-out 9.0 % -> 8.7 %).
    const double hop = x.l_net;
    const double net = x.b_net / (x.sys.nodes <= 2 ? 1.0 : 2.0);
    const double window = x.nc * x.prm.net_window * 8 * chunk / (2 * hop);
    if (net < bw) bw = net, neck = "network";
    if (window < bw) bw = window, neck = "window";
    lat += 2 * x.depth * hop;
    hops += 2 * x.depth;
  }
  const double chunks = std::max(1.0, x.S / (chunk * x.nc));
  const double t =
      lat + x.S / bw + (hops - 1) * chunk * x.nc / bw + chunks * x.prm.nvls_chunk_latency_us;
  return {t, lat, x.S / bw < lat ? "latency" : neck};
}

// PAT (Parallel Aggregated Trees; all-gather and reduce-scatter with one GPU per node): each
// rank exchanges with the ranks 1, 2, 4, ... nodes away, aggregating what it forwards, so the
// bytes through its NICs are Ring's, (n-1)/n of the buffer, and the path of the last piece is
// ceil(log2 nodes) network hops instead of n-1 (src/device/all_gather.h / reduce_scatter.h
// RunWorkColl<..., NCCL_ALGO_PAT, NCCL_PROTO_SIMPLE>, src/include/collectives.h
// PatAGAlgorithm / PatRSAlgorithm). Its copies are Simple's, one CTA per channel. No log in
// the validation sets ran PAT at >= 1 MiB (NCCL's own estimate leaves it to the small sizes),
// so this shares Ring's and Tree's fitted rates and hop latencies and has nothing of its own.
NcclPhysicalTime pat(const Context& x) {
  const double volume = sched::busbw_factor(x.coll, x.sys.ranks()) * x.S;
  const double engine = x.nc * x.b_simple_ch;
  double bw = engine;
  const char* neck = "engine";
  if (x.sys.nodes > 1 && x.b_net < bw) bw = x.b_net, neck = "network";
  const double lat = x.t0 + x.depth * x.l_net;
  return {lat + volume / bw, lat, volume / bw < lat ? "latency" : neck};
}

}  // namespace

NcclPhysicalTime nccl_physical_time(const NcclSystem& sys, const NcclModelParams& prm,
                                    const NcclLaunchInputs& launch, sched::Collective c, NcclAlgo a,
                                    NcclProto p, int channels, double bytes) {
  const Context x = make_context(sys, prm, launch, c, a, p, channels, bytes);
  switch (a) {
    case NcclAlgo::Ring:
      return ring(x);
    case NcclAlgo::Tree:
      return tree(x);
    case NcclAlgo::Nvls:
    case NcclAlgo::NvlsTree:
      return nvls(x);
    case NcclAlgo::Pat:
      return pat(x);
  }
  return ring(x);
}

}  // namespace topotune::algo
