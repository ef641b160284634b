#pragma once
// NcclModelParams: the physical parameters of the NCCL predictor, with their provenance.
//
// The predictor chooses as NCCL chooses (its tuning model, channel rules and the AWS tuner, all
// copied from their source by release: nccl_tuning_tables.h, nccl_search_tables.h) and then
// times that choice physically (nccl_physical_time.h). The physical model has the few shared
// parameters below: achieved shares of NVLink, NVLS and NIC line rates, per-channel engine
// rates relative to NCCL's own per-channel tables, hop latencies as scales of NCCL's latency
// table plus a per-NIC-class network latency, and the costs of host staging and multi-GPU
// launches. They are fitted by `topotune calibrate` on the validation logs and shared by every
// cluster: nothing is keyed by instance or entry.
//
// Values and sources have one home, data/nccl_model.json, compiled into the binary (a refit
// edits that file and rebuilds); the code holds only names, bounds and where each value lives.
// A calibration file has the same schema and overrides a subset.

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "core/expected.h"

namespace topotune::algo {

/// NCCL's algorithms modelled here (CollNet needs a SHARP plugin: no catalog instance has one).
/// Pat: all-gather and reduce-scatter on one GPU per node (NCCL 2.23.4 on).
enum class NcclAlgo { Ring, Tree, Nvls, NvlsTree, Pat };
/// NCCL's protocols.
enum class NcclProto { LL, LL128, Simple };
inline constexpr int kNumNcclAlgos = 5;
inline constexpr int kNumNcclProtos = 3;

const char* nccl_algo_name(NcclAlgo a);    ///< "ring", "tree", "nvls", "nvls_tree", "pat"
const char* nccl_proto_name(NcclProto p);  ///< "LL", "LL128", "Simple"
Expected<NcclAlgo> parse_nccl_algo(const std::string& name);  ///< case-insensitive, NCCL_ALGO names

/// Network interface classes that differ in latency and achieved bandwidth. Tcpx / Tcpxo:
/// GCP's GPUDirect-TCPX (A3 High) and GPUDirect-TCPXO (A3 Mega) net plugins, whose receive
/// paths differ (TCPX: host TCP stack, a GPU kernel unpacks the received pages; TCPXO: the
/// NIC offload places them), so they share nothing to fit with each other or NCCL's sockets.
/// Roce: RDMA over Converged Ethernet. NCCL drives it with the same IB verbs code as InfiniBand,
/// but the fabric is Ethernet (its switches and congestion control, and Ethernet, IP and UDP
/// headers on every packet) and the clouds that run it (GCP) load their own NCCL net plugin.
enum class NicClass { EfaSrd, EfaRdma, InfiniBand, Tcp, Tcpx, Tcpxo, Roce };
inline constexpr int kNumNicClasses = 7;
/// "efa_srd", "efa_rdma", "infiniband", "tcp", "tcpx", "tcpxo", "roce"
const char* nic_class_name(NicClass c);

/// GPU generations that select rows of NCCL's constant tables.
inline constexpr int kNumArchRows = 4;  // volta, ampere, hopper, blackwell

template <class T>
using AlgoProtoTable = std::array<std::array<T, kNumNcclProtos>, kNumNcclAlgos>;

struct NcclModelParams {
  double nvlink_efficiency = 0;  ///< achieved share of a GPU's NVLink rate (ring/tree copies)
  double nvls_efficiency = 0;    ///< achieved share of NVLink rate by in-switch reduction (Hopper)
  /// The same share in NVLSTree, whose channels (16 SMs by default) also drive the network
  /// send and receive of the inter-node tree.
  double nvls_tree_efficiency = 0;
  double pcie_efficiency = 0;  ///< achieved share of a PCIe-only GPU's link rate
  /// Achieved share of NIC line rate; read it through net_efficiency_of (RoCE has no own entry).
  std::array<double, kNumNicClasses> net_efficiency{};
  std::array<double, kNumNicClasses> nic_latency_us{};  ///< one network hop, added to NCCL's
  /// Per-channel engine rates as multiples of NCCL's own per-channel figures (latest release):
  double ring_simple_engine = 0;     ///< x perChMaxTreeBws[arch][1 node], per run channel
  double tree_simple_engine = 0;     ///< x perChMaxTreeBws[arch][scale] x 0.92, per search channel
  double ring_ll128_engine = 0;      ///< x perChMaxRingLL128Bws x 0.92, per search channel
  double tree_ll128_engine = 0;      ///< x perChMaxTreeLL128Bws x 120/128, per search channel
  double ll_engine = 0;              ///< x llMaxBws (8+ channels)
  double base_latency_scale = 0;     ///< multiplies NCCL's baseLatencies
  double nvlink_latency_scale = 0;   ///< multiplies NCCL's NVLink hop latency
  double net_latency_scale = 0;      ///< multiplies NCCL's network hop latency
  double nvls_latency_us = 0;        ///< one NVLS reduce + multicast round through the switch
  double nvls_chunk_latency_us = 0;  ///< per NVLS chunk a channel moves (switch handshake)
  double net_window = 0;  ///< in-flight pipeline units per channel and network round trip / 8
  double host_staging_efficiency = 0;  ///< without GPUDirect RDMA: bounce through host memory
  double host_staging_latency_us = 0;
  double launch_overhead_per_gpu_us = 0;  ///< one thread launching g GPUs pays (g-1) of these
  /// One LL128 ring step at a GPU whose ring leaves or enters its node (store and forward
  /// through NCCL's proxy thread; nccl_physical_time.cc), sm_90 and later from NCCL 2.17.1,
  /// by NIC class: the proxy posts, and tests for the completion of, every step through the
  /// class's network plugin (verbs for InfiniBand/RoCE, libfabric for EFA, GCP's plugins).
  std::array<double, kNumNicClasses> ring_net_step_us{};
  /// One Simple ring send at a GPU whose ring crosses GPUDirect-TCPX: the plugin's socket
  /// thread, idle while a zero-copy send awaits its completion, sleeps
  /// NCCL_GPUDIRECTTCPX_TX_COMPLETION_NANOSLEEP, which Linux stretches by the thread's timer
  /// slack; a send posted meanwhile waits for the thread to wake (nccl_physical_time.cc).
  double tcpx_tx_sleep_us = 0;
};

/// The class's share of NIC line rate. RoCE takes InfiniBand's: the same NICs (ConnectX) and
/// the same verbs code move the bytes; what differs is the fabric's latency and the per-step
/// cost (nic_latency_us, ring_net_step_us), which RoCE has of its own.
double net_efficiency_of(const NcclModelParams& p, NicClass c);

/// The built-in parameter set: data/nccl_model.json as the build embedded it.
const NcclModelParams& default_params();

/// One named scalar of NcclModelParams: the names used in JSON and by calibration.
struct ParamInfo {
  std::string name;       ///< e.g. "nvlink_efficiency", "net_efficiency.infiniband"
  std::string source;     ///< provenance of the default value (from data/nccl_model.json)
  bool fittable = false;  ///< calibration may change it
  double min = 0;         ///< bounds for fitting
  double max = 0;
  std::function<double*(NcclModelParams&)> ref;  ///< where the value lives
};

/// Every parameter, in a fixed order (the order of the JSON file).
const std::vector<ParamInfo>& param_table();

/// Looks a parameter up by name; nullptr when unknown.
const ParamInfo* find_param(const std::string& name);

/// Serialises all parameters with their sources (schema "topotune.nccl_model/2").
std::string params_to_json(const NcclModelParams& p, const std::string& description);

/// Applies a model or calibration file on top of `base`. Unknown names are errors (typos);
/// a file may set a subset. `origin` names the file in messages.
Expected<NcclModelParams> params_from_json(const std::string& text, const std::string& origin,
                                           const NcclModelParams& base);

/// Reads `path` and applies it on top of `base`.
Expected<NcclModelParams> load_params_file(const std::string& path, const NcclModelParams& base);

}  // namespace topotune::algo
