#include "algorithms/nccl/nccl_predictor.h"

#include <algorithm>
#include <utility>

#include "algorithms/nccl/nccl_physical_time.h"
#include "algorithms/nccl/nccl_search_tables.h"

namespace topotune::algo {
namespace {

constexpr int R(int ma, int mi, int pa) { return nccl_release_code(ma, mi, pa); }
constexpr int kNumCollectives = 4;
// ncclTopoGetAlgoInfo's loop order (Tree before Ring, NVLS, NVLSTree, PAT: NCCL_ALGO_* index
// order), which breaks ties.
constexpr NcclAlgo kNcclOrder[] = {NcclAlgo::Tree, NcclAlgo::Ring, NcclAlgo::Nvls,
                                   NcclAlgo::NvlsTree, NcclAlgo::Pat};
constexpr NcclProto kProtos[] = {NcclProto::LL, NcclProto::LL128, NcclProto::Simple};

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

/// ncclNetProperties.latency the AWS net plugin reports (aws/aws-ofi-nccl src/platform-aws,
/// commit d87d61e0 in v1.7.0-aws): p4d/p4de/p5/p5e 75 us, p3dn 150, p5en/p6 35; every EFA
/// platform reported 150 before. NCCL's own IB and socket transports report 0, and so do GCP's
/// plugins (props->latency = 0: google/nccl-plugin-gpudirecttcpx src/net_tcpx.cc
/// tcpxGetProperties at 4b8ea7f; google/nccl-plugin-gpudirect-tcpxo
/// tcpdirect_plugin/fastrak_offload/nccl_shim.cc NcclShim::GetProperties at v1.0.17).
double plugin_latency_us(const NcclSystem& s, int release) {
  if (s.nic_class != NicClass::EfaSrd && s.nic_class != NicClass::EfaRdma) return 0.0;
  if (release < R(2, 18, 0) || starts_with(s.instance, "p3dn")) return 150.0;
  if (starts_with(s.instance, "p5en") || starts_with(s.instance, "p6")) return 35.0;
  return 75.0;
}

bool is_efa(const NcclSystem& s) {
  return s.nic_class == NicClass::EfaSrd || s.nic_class == NicClass::EfaRdma;
}

/// The NCCL environment GCP's GPUDirect plugins are run with, where the user set none of it
/// (as aws-ofi-nccl's own NCCL_PROTO rule below). Neither plugin sets NCCL variables itself;
/// Google's setups do:
/// - TCPX (A3 High): NCCL_ALGO=Ring, NCCL_PROTO=Simple, NCCL_MIN_NCHANNELS=NCCL_MAX_NCHANNELS=8
///   (GoogleCloudPlatform/cluster-toolkit examples/gke-a3-highgpu/nccl-config.yaml at 1047080,
///   copied from container-engine-accelerators gpudirect-tcpx/nccl-config.yaml).
/// - TCPXO (A3 Mega): NCCL_PROTO=Simple,LL128, NCCL_MIN_NCHANNELS=4 (google/nccl-plugin-
///   gpudirect-tcpxo tcpxo_scripts/nccl-env-profile.sh, v1.0.12 to v1.0.17, which the
///   installer ships and workloads source). The profile also loads a tuner plugin whose
///   config (a3plus_tuner_config.textproto) is not published: not modelled.
NcclOptions with_plugin_environment(const NcclSystem& s, NcclOptions o) {
  if (s.nic_class == NicClass::Tcpx) {
    if (o.algos.empty()) o.algos = {NcclAlgo::Ring};
    if (o.protos.empty()) o.protos = {NcclProto::Simple};
    if (o.min_channels == 0 && o.max_channels == 0) o.min_channels = o.max_channels = 8;
  } else if (s.nic_class == NicClass::Tcpxo) {
    if (o.protos.empty()) o.protos = {NcclProto::LL128, NcclProto::Simple};
    if (o.min_channels == 0) o.min_channels = 4;
  }
  return o;
}

}  // namespace

NcclNodeView nccl_node_view(const NcclSystem& s, int release) {
  NcclNodeView v;
  v.gpus = s.gpus_per_node;
  v.cc = s.cc;
  v.fabric = s.intra;
  const int links = std::min(s.nvlinks_per_gpu, nccl_max_nvlinks(release, s.cc));
  v.nvlink_bw =
      s.intra == topo::IntraFabric::PcieOnly ? 0.0 : links * nccl_nvlink_bw_per_link(release, s.cc);
  v.pci_bw = nccl_pci_bw(s.pcie_bandwidth.gbps_bytes(), s.cc);
  if (s.intra == topo::IntraFabric::PcieOnly) v.nvlink_bw = v.pci_bw;
  v.nets = s.nics_per_node;
  v.net_bw = s.nic_bandwidth.gbps_bytes();
  v.gpus_per_net = s.gpus_per_nic_switch;
  // aws-ofi-nccl's RDMA protocol on p5-class instances groups each GPU's rails into one
  // device whose speed is the sum of its rails (src/nccl_ofi_rdma get_properties:
  // port_speed *= num_rails): NCCL sees one device per GPU.
  if (is_efa(s) && s.gpus_per_node > 0 && s.nics_per_node > s.gpus_per_node &&
      (starts_with(s.instance, "p5") || starts_with(s.instance, "p6"))) {
    v.net_bw *= static_cast<double>(s.nics_per_node) / s.gpus_per_node;
    v.nets = s.gpus_per_node;
    v.gpus_per_net = 1;
  }
  return v;
}

NcclPredictor::NcclPredictor(NcclSystem system, NcclModelParams params, NcclOptions options)
    : system_(std::move(system)),
      params_(std::move(params)),
      options_(with_plugin_environment(system_, std::move(options))) {
  const int rel = options_.version.code();
  const NcclSystem& s = system_;
  const bool efa = is_efa(s);
  // NVLS: NVSwitch gen3+, SM90+, more than 2 GPUs (2 from v2.28.7-1); aws-ofi-nccl turns it
  // off below NCCL 2.18.5 (NCCL_NVLS_ENABLE=0, v1.8.0-aws configure_nvls_option).
  const bool nvls = s.nvls && s.cc >= 90 && rel >= R(2, 17, 0) &&
                    s.gpus_per_node > (rel >= R(2, 28, 7) ? 1 : 2) && !(efa && rel < R(2, 18, 5));
  launch_.release = rel;
  launch_.ranks = s.ranks();
  launch_.nodes = s.nodes;
  launch_.graphs = nccl_search(nccl_node_view(s, rel), rel, s.nodes, nvls,
                               s.gpudirect_rdma || s.nodes == 1, plugin_latency_us(s, rel));
  NcclGraphs& g = launch_.graphs;
  for (int* c : {&g.comm_channels, &g.coll_channels}) {
    if (options_.max_channels > 0) *c = std::min(*c, options_.max_channels);
    if (options_.min_channels > 0) *c = std::max(*c, options_.min_channels);
    *c = std::clamp(*c, 1, nccl_max_channels(rel));
  }
  if (efa) {  // aws-ofi-nccl platform_init: 512 KiB NVLS chunks (v1.8.0-aws / v1.9.0-aws on)
    launch_.buffers.nvls_chunk_bytes = 524288;
    launch_.buffers.nvlstree_max_chunk_bytes = 524288;
  }
  tuning_.release = rel;
  tuning_.ranks = s.ranks();
  tuning_.nodes = s.nodes;
  tuning_.cc = s.cc;
  tuning_.amd_cpu = s.amd_cpu;
  tuning_.graphs = g;
  tuning_.nvls_support = nvls;
  // GPUDirect-TCPX reports netDeviceType NCCL_NET_DEVICE_UNPACK (google/nccl-plugin-gpudirecttcpx
  // src/net_tcpx.cc tcpxGetProperties at 4b8ea7f); TCPXO reports NCCL_NET_DEVICE_HOST
  // (nccl-plugin-gpudirect-tcpxo nccl_shim.cc at v1.0.17), as NCCL's own transports do.
  tuning_.net_device_offload = s.nic_class == NicClass::Tcpx;
  tuning_.algos = options_.algos;
  tuning_.protos = options_.protos;
  // aws-ofi-nccl sets NCCL_PROTO=simple (when unset) on EFA endpoints without 128-byte
  // in-order writes, the EFA v1 send/receive path of p3dn/p4d/p4de (platform-aws
  // configure_nccl_proto, v1.6.0; AWS's EFA docs asked users to set it before).
  if (tuning_.protos.empty() && s.nic_class == NicClass::EfaSrd) {
    tuning_.protos = {NcclProto::Simple};
  }
  for (int c = 0; c < kNumCollectives; ++c) {
    tables_.push_back(nccl_tune(tuning_, static_cast<sched::Collective>(c)));
  }
  if (options_.tuner == NcclTunerMode::AwsRegion ||
      (options_.tuner == NcclTunerMode::Auto && rel >= R(2, 21, 0))) {
    tuner_ = aws_tuner_platform(s.instance);
  }
}

const NcclTuningTable& NcclPredictor::table(sched::Collective c) const {
  return tables_[static_cast<std::size_t>(c)];
}

NcclCandidate NcclPredictor::evaluate(sched::Collective c, Bytes bytes, NcclAlgo a, NcclProto q,
                                      int tuner_channels) const {
  NcclCandidate cand;
  cand.algo = a;
  cand.proto = q;
  const NcclTuningTable& t = table(c);
  const char* why = t.why_disabled[static_cast<int>(a)][static_cast<int>(q)];
  cand.why_disabled = why == nullptr ? "" : why;
  cand.enabled = why == nullptr;
  if (!cand.enabled) return cand;
  const double b = static_cast<double>(std::max<std::int64_t>(bytes.value, 1));
  cand.channels = tuner_channels > 0 ? nccl_tuner_channels(launch_, q, b, tuner_channels)
                                     : nccl_run_channels(launch_, a, q, b);
  const NcclPhysicalTime pt =
      nccl_physical_time(system_, params_, launch_, c, a, q, cand.channels, b);
  cand.time = microseconds(pt.time_us);
  cand.latency = microseconds(pt.latency_us);
  cand.bottleneck = pt.bottleneck;
  cand.nccl_estimate = microseconds(std::max(0.0, nccl_algo_time_us(tuning_, t, c, a, q, b)));
  return cand;
}

Expected<NcclPrediction> NcclPredictor::predict(sched::Collective c, Bytes bytes,
                                                bool explain) const {
  if (bytes.value < 0) return fail(Errc::InvalidArgument, "negative size");
  if (bytes.value > kMaxBufferBytes) {  // the limit every collective has (core/units.h)
    return fail(Errc::InvalidArgument, "size " + std::to_string(bytes.value) +
                                           " is more than the 1 TiB limit (docs/limits.md)");
  }
  NcclPrediction out;
  out.bytes = bytes;
  const double b = static_cast<double>(std::max<std::int64_t>(bytes.value, 1));
  const NcclTuningTable& t = table(c);
  double best = -1;
  std::pair<NcclAlgo, NcclProto> choice{NcclAlgo::Ring, NcclProto::Simple};
  for (NcclAlgo a : kNcclOrder) {
    for (NcclProto q : kProtos) {
      const double time = nccl_algo_time_us(tuning_, t, c, a, q, b);
      if (time >= 0 && (best < 0 || time < best)) best = time, choice = {a, q};
      if (explain) out.candidates.push_back(evaluate(c, bytes, a, q));
    }
  }
  if (best < 0) {
    // Say why the algorithms NCCL_ALGO / NCCL_PROTO left in are out ("pat: PAT needs one GPU
    // per node"), so that a restriction that leaves nothing names its reason.
    const auto left_in = [](const auto& list, auto x) {
      return list.empty() || std::find(list.begin(), list.end(), x) != list.end();
    };
    std::string why;
    for (NcclAlgo a : kNcclOrder) {
      for (NcclProto q : kProtos) {
        const char* r = t.why_disabled[static_cast<int>(a)][static_cast<int>(q)];
        if (r == nullptr || !left_in(tuning_.algos, a) || !left_in(tuning_.protos, q)) continue;
        const std::string item = std::string(nccl_algo_name(a)) + ": " + r;
        if (why.find(item) == std::string::npos) why += (why.empty() ? " (" : "; ") + item;
      }
    }
    return fail(Errc::Unsupported, "no NCCL algorithm/protocol is enabled for " +
                                       std::string(sched::collective_name(c)) + " on this system" +
                                       (why.empty() ? "" : why + ")"));
  }
  out.chosen_by = "NCCL's cost model";
  int tuner_channels = 0;
  if (c != sched::Collective::Broadcast && tuner_ != AwsTunerPlatform::None) {
    const auto enabled = [&t](NcclAlgo a, NcclProto q) {
      return t.bandwidth_GBps[static_cast<int>(a)][static_cast<int>(q)] > 0;
    };
    if (const auto r =
            aws_region_tuner_choice(tuner_, c, system_.ranks(), system_.nodes, b, enabled)) {
      choice = *r;
      out.chosen_by = "AWS region tuner (aws-ofi-nccl)";
      tuner_channels = aws_region_tuner_channels(tuner_, c, system_.ranks(), system_.nodes, b,
                                                 choice.first, choice.second);
    }
  }
  out.chosen = evaluate(c, bytes, choice.first, choice.second, tuner_channels);
  for (NcclCandidate& cand : out.candidates) {  // the explained row of the pick is the pick
    if (cand.algo == choice.first && cand.proto == choice.second) cand = out.chosen;
  }
  const double time = out.chosen.time.value;
  out.algbw_GBps = time > 0 ? static_cast<double>(bytes.value) / time / 1e9 : 0.0;
  out.busbw_GBps = out.algbw_GBps * sched::busbw_factor(c, system_.ranks());
  return out;
}

}  // namespace topotune::algo
