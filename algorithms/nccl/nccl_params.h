#pragma once
// NcclModelParams: every number the NCCL predictor uses, with its provenance.
//
// Two kinds of parameters live here. NCCL's own tuning constants (base and per-hop latencies,
// LL bandwidth caps, protocol efficiencies: src/graph/tuning.cc, see anchors.md §2.1) are
// copied as NCCL ships them. Physical parameters that NCCL does not know (achieved fraction of
// a link's rate, NIC latency per NIC class, pipeline chunk sizes, the share of a step's
// latency that the protocol does not hide) are fitted by `topotune calibrate`; their source
// says on what. There is ONE parameter set for every cluster: nothing is keyed by instance.
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
enum class NcclAlgo { Ring, Tree, Nvls, NvlsTree };
/// NCCL's protocols.
enum class NcclProto { LL, LL128, Simple };
inline constexpr int kNumNcclAlgos = 4;
inline constexpr int kNumNcclProtos = 3;

const char* nccl_algo_name(NcclAlgo a);    ///< "ring", "tree", "nvls", "nvls_tree"
const char* nccl_proto_name(NcclProto p);  ///< "LL", "LL128", "Simple"
Expected<NcclAlgo> parse_nccl_algo(const std::string& name);  ///< case-insensitive, NCCL_ALGO names

/// Network interface classes that differ in latency and achieved bandwidth.
enum class NicClass { EfaSrd, EfaRdma, InfiniBand, Tcp };
inline constexpr int kNumNicClasses = 4;
const char* nic_class_name(NicClass c);  ///< "efa_srd", "efa_rdma", "infiniband", "tcp"

/// GPU generations that select rows of NCCL's constant tables.
inline constexpr int kNumArchRows = 4;  // volta, ampere, hopper, blackwell

template <class T>
using AlgoProtoTable = std::array<std::array<T, kNumNcclProtos>, kNumNcclAlgos>;

struct NcclModelParams {
  // --- NCCL constants (tuning.cc) ---
  AlgoProtoTable<double> base_latency_us{};    ///< baseLatencies[algo][proto]
  AlgoProtoTable<double> nvlink_latency_us{};  ///< hwLat[NVLINK][algo][proto], per intra hop
  AlgoProtoTable<double> net_latency_us{};     ///< hwLat[NET][algo][proto], per network hop
  /// llMaxBws[arch][scale] in GB/s busbw; scale = 1 node, 2 nodes, 4+ nodes.
  std::array<std::array<double, 3>, kNumArchRows> ll_max_busbw_GBps{};
  std::array<double, kNumNcclProtos> proto_efficiency{};  ///< payload share: LL 1/2, LL128 120/128
  double nvlink_channel_GBps =
      0;                     ///< per-channel NVLink speed NCCL's search targets (SM80_NVLINK_BW)
  double max_channels = 0;   ///< MAXCHANNELS
  double nvls_channels = 0;  ///< NVLS channel count on Hopper
  /// Per-channel connection buffer of each protocol (DEFAULT_LL_BUFFSIZE, DEFAULT_LL128_BUFFSIZE,
  /// DEFAULT_BUFFSIZE): at most this much is in flight per channel and network round trip.
  std::array<double, kNumNcclProtos> buffer_bytes{};

  // --- physical parameters (fitted) ---
  double nvlink_efficiency = 0;  ///< achieved share of a GPU's NVLink rate (ring/tree copies)
  double nvls_efficiency = 0;    ///< achieved share of NVLink rate by in-switch reduction
  double pcie_efficiency = 0;    ///< achieved share of a PCIe-only GPU's link rate
  std::array<double, kNumNicClasses> net_efficiency{};  ///< achieved share of NIC line rate
  std::array<double, kNumNicClasses> nic_latency_us{};  ///< one network hop, added to NCCL's
  double host_staging_efficiency = 0;  ///< without GPUDirect RDMA: bounce through host memory
  double host_staging_latency_us = 0;
  double gdr_flush_latency_us = 0;        ///< GPUDirect receive flush on NICs without RDMA write
  double launch_overhead_per_gpu_us = 0;  ///< one thread launching g GPUs pays (g-1) of these
  std::array<double, kNumNcclProtos> chunk_bytes{};   ///< pipeline unit per channel
  std::array<double, kNumNcclProtos> step_exposed{};  ///< share of a step's latency not hidden
  double nvlink_latency_scale = 0;                    ///< multiplies NCCL's NVLink hop latency
  double net_latency_scale = 0;                       ///< multiplies NCCL's network hop latency
};

/// The built-in parameter set: data/nccl_model.json as the build embedded it.
const NcclModelParams& default_params();

/// One named scalar of NcclModelParams: the names used in JSON and by calibration.
struct ParamInfo {
  std::string name;       ///< e.g. "nvlink_efficiency", "nccl.base_latency_us.ring.LL"
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

/// Serialises all parameters with their sources (schema "topotune.nccl_model/1").
std::string params_to_json(const NcclModelParams& p, const std::string& description);

/// Applies a model or calibration file on top of `base`. Unknown names are errors (typos);
/// a file may set a subset. `origin` names the file in messages.
Expected<NcclModelParams> params_from_json(const std::string& text, const std::string& origin,
                                           const NcclModelParams& base);

/// Reads `path` and applies it on top of `base`.
Expected<NcclModelParams> load_params_file(const std::string& path, const NcclModelParams& base);

}  // namespace topotune::algo
