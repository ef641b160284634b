#pragma once
// InstanceSpec: one machine type of the catalog (data/instances/<name>.json), as loaded and
// validated. Bandwidths are bytes/s per direction (converted once by the loader). A figure
// that nobody published is std::nullopt here and listed in `unknowns`; the builder then uses
// a stated model default (see cluster_spec.h), which the user may override.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/units.h"

namespace topotune::topo {

enum class GpuArch { Volta, Turing, Ampere, Hopper, Blackwell, Unknown };
enum class IntraFabric { NvSwitch, NvLinkMesh, PcieOnly };
/// How GPUs of different nodes talk. Roce: RDMA over Converged Ethernet through NCCL's IB verbs
/// transport (or a verbs-based plugin such as GCP's gIB), the same code path as InfiniBand.
/// GpuDirectTcpx / GpuDirectTcpxo: GCP A3 High / A3 Mega, TCP whose receive lands in GPU memory
/// through Google's NCCL net plugins (nccl-plugin-gpudirecttcpx, nccl-plugin-gpudirect-tcpxo):
/// neither RDMA nor NCCL's socket transport, so each is a transport of its own.
enum class NetTransport { Efa, InfiniBand, Roce, Tcp, GpuDirectTcpx, GpuDirectTcpxo };

const char* arch_name(GpuArch a);
const char* fabric_name(IntraFabric f);
const char* transport_name(NetTransport t);

/// The lowest and highest of the figures sources publish for one quantity, where they
/// disagree (in the quantity's SI unit: FLOP/s, bytes).
struct PublishedRange {
  double low = 0;
  double high = 0;
};

struct GpuSpec {
  std::string model;  ///< "A100-SXM4-40GB"
  GpuArch arch = GpuArch::Unknown;
  bool bf16_native = false;  ///< computes bf16 natively (Ampere and later)
  Bytes memory{0};
  double peak_fp16_flops = 0;  ///< dense fp16/bf16 tensor FLOP/s
  double peak_fp32_flops = 0;  ///< dense fp32 (non-tensor) FLOP/s
  /// dense TF32 tensor FLOP/s; unknown (or no TF32: before Ampere) is std::nullopt
  std::optional<double> peak_tf32_flops;
  std::optional<BytesPerSec> memory_bandwidth;  ///< HBM/GDDR bandwidth
  std::optional<BytesPerSec> reduce_bandwidth;  ///< measured sum-reduction throughput, if any
  /// Where the catalog marks the fp16/bf16 peak unknown because published figures disagree,
  /// the lowest and highest of them (FLOP/s, low < high): the planner computes its advice at
  /// both ends and gives it only when it is the same (planning/peak_bracket.h).
  std::optional<PublishedRange> peak_fp16_published;
  /// Where the catalog marks the memory unknown because published figures disagree, their
  /// lowest and highest (bytes): plans check what fits against the lowest.
  std::optional<PublishedRange> memory_published;
  /// Streaming multiprocessors. NCCL runs one thread block per channel, so a collective's
  /// channels take that many SMs from compute; unknown: the plan charges nothing, and says so.
  std::optional<int> sm_count;
};

/// Two GPUs joined directly by `links` NVLinks (NVLink mesh machines such as p3.16xlarge).
struct NvLinkPair {
  int a = 0;
  int b = 0;
  int links = 1;
};

/// A PCIe switch and what hangs under it (GPU and NIC local indices), on CPU socket `socket`.
struct PcieSwitchSpec {
  int socket = 0;
  std::vector<int> gpus;
  std::vector<int> nics;
};

struct InstanceSpec {
  std::string name;                           ///< "p4d.24xlarge"
  std::string vendor;                         ///< "aws", "nvidia", "gcp", "azure", "custom"
  std::string description;                    ///< one line, for tables
  std::optional<std::string> sagemaker_name;  ///< "ml.p4d.24xlarge" where SageMaker has it

  int num_gpus = 0;
  GpuSpec gpu;

  IntraFabric fabric = IntraFabric::PcieOnly;
  BytesPerSec nvlink_bandwidth_per_link;  ///< per direction, one link
  int nvlinks_per_gpu = 0;                ///< NVSwitch: each GPU's links into the switch
  std::vector<NvLinkPair> nvlink_pairs;   ///< NvLinkMesh only
  bool nvls = false;                      ///< NVSwitch with in-switch reduction (NVLS/SHARP)
  /// Hosts whose GPUs share one NVLink fabric (a multi-node NVLink domain: 18 for a GB200/GB300
  /// NVL72 rack of 4-GPU hosts); 1 when NVLink stays inside the host. NvSwitch only. Hosts
  /// fill domains in order; the last domain may be partial.
  int nvlink_domain_hosts = 1;

  int cpu_sockets = 1;
  std::optional<std::string> cpu_model;                   ///< "Intel Xeon Platinum 8275CL"
  std::optional<Bytes> host_memory;                       ///< host RAM
  std::optional<BytesPerSec> cpu_interconnect_bandwidth;  ///< socket-to-socket (QPI/UPI/xGMI)
  std::optional<BytesPerSec> cpu_reduce_bandwidth;        ///< host-memory sum throughput
  std::optional<BytesPerSec> pcie_bandwidth;              ///< a GPU's or NIC's PCIe link
  std::vector<PcieSwitchSpec> pcie_switches;  ///< empty: devices hang off the CPU sockets
  std::vector<int> gpu_socket;                ///< socket of each GPU (num_gpus entries)
  std::vector<int> nic_socket;                ///< socket of each NIC (num_nics entries)

  int num_nics = 0;
  BytesPerSec nic_bandwidth;  ///< per NIC, per direction
  bool gpudirect_rdma = false;
  NetTransport transport = NetTransport::Tcp;
  std::optional<int> efa_version;  ///< EFA generation, where EFA

  /// Figure path as in the JSON ("gpu.memory_GiB", "network.nic_Gbps") -> source, for
  /// reports and `topo --format json`; unknown figures map to "unknown: <note>".
  std::map<std::string, std::string> sources;
  /// Figure path -> tag ("derived", "secondary", "unverified", "disagree") where the file has one.
  std::map<std::string, std::string> tags;
  /// Figure paths that are unknown (not published); the model uses stated defaults for them.
  std::vector<std::string> unknowns;
};

}  // namespace topotune::topo
