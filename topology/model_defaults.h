#pragma once
// Model defaults: the one place where topotune states what it assumes when a figure is not
// published (marked unknown in the catalog) or is a model parameter rather than a hardware
// fact. Every value here is an ASSUMPTION, documented in docs/model.md, to be calibrated
// against measurements (calibration and --cluster files override them). None of these is a
// vendor figure.

#include <array>

#include "core/units.h"
#include "topology/cluster_spec.h"

namespace topotune::topo {

/// PCIe link of a GPU or NIC when unknown: Gen3 x16, 8 GT/s x 16 lanes x 128/130 / 8 bits.
inline constexpr double kDefaultPcieGBps = 15.75;

/// The PCIe links of `in` when its figure is unknown: Gen3 x16, or the NIC's line rate where
/// that is faster. A NIC sold at 200-800 Gb/s sits on a link that carries its rate (else the
/// rate could not be reached), and GPUDirect RDMA moves the same bytes over the GPU's link:
/// without that floor a 400 Gb/s NIC (50 GB/s) would be timed at 15.75 GB/s by the simulator.
inline BytesPerSec default_pcie_bandwidth(const InstanceSpec& in) {
  const BytesPerSec gen3 = gbyte_per_sec(kDefaultPcieGBps);
  return in.nic_bandwidth.value > gen3.value ? in.nic_bandwidth : gen3;
}
/// Socket-to-socket link (QPI/UPI/xGMI) when unknown: assumed 20 GB/s per direction.
inline constexpr double kDefaultCpuInterconnectGBps = 20.0;
/// Host-memory sum-reduction throughput of one socket when unknown: assumed 10 GB/s.
inline constexpr double kDefaultCpuReduceGBps = 10.0;
/// GPU reduce throughput when unmeasured = memory bandwidth / 3 (reads 2 operands, writes 1).
inline constexpr double kGpuReduceShareOfMemoryBandwidth = 1.0 / 3.0;
/// GPU reduce throughput when neither it nor the memory bandwidth is known: assumed 100 GB/s.
inline constexpr double kDefaultGpuReduceGBps = 100.0;

/// Spine oversubscription of partition/spread placements: assumed 4:1 (AWS does not publish it).
inline constexpr double kDefaultSpineOversubscription = 4.0;
/// AWS: at most 7 partitions per Availability Zone; partition placement uses min(7, hosts) racks.
inline constexpr int kMaxPartitionRacks = 7;
/// Cluster placement beyond one scalable unit: rail-optimised leaves per unit of this many
/// hosts, a non-blocking spine above. NVIDIA's DGX SuperPOD H100 reference architecture
/// (docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100, "Network
/// Fabrics"): "Each group of 32 nodes is rail-aligned. Traffic per rail of the DGX H100 systems
/// is always one hop away from the other 31 nodes in a SU. Traffic between nodes, or between
/// rails, traverses the spine layer", with as many leaf-spine cables as node-leaf cables
/// (Table 4: 1:1). AWS publishes no tier figures for EC2 UltraClusters: for AWS instances this
/// is an ASSUMPTION borrowed from NVIDIA's design, overridable by a cluster file's "fabric".
inline constexpr int kScalableUnitHosts = 32;
inline constexpr double kScalableUnitOversubscription = 1.0;
/// Cluster placement beyond what two tiers build: a super-spine (core) tier above spines that
/// each serve a pod of scalable units. NVIDIA's DGX SuperPOD B200 reference architecture
/// (docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/latest/
/// dgx-superpod-architecture.html, "Larger DGX SuperPOD component counts") builds up to 8 SUs
/// (256 nodes) with leaves and spines only and adds core switches from 16 SUs on, with as many
/// spine-core cables as node-leaf cables (16 SUs: 4,096 / 4,096 / 4,096: 1:1 at every tier).
/// The pod (a spine-leaf group: "all SPINE connect to all LEAF within the group", NVIDIA
/// InfiniBand Cluster Bring-up Procedure, Acronyms) is not stated; derived from the same table
/// (16 SUs: 128 spines with 32 leaf cables and 32 core cables each, so a group of every spine to
/// every leaf has 32 leaves, 4 SUs of 8 rails): 4 SUs. An ASSUMPTION for AWS, whose UltraClusters
/// are described only as "low-latency, petabit-scale, non-blocking"
/// (docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CapacityBlock.html): overridable by a
/// cluster file's fabric.racks_per_pod, pod_oversubscription and superspine_latency_us.
inline constexpr int kTwoTierMaxScalableUnits = 8;
inline constexpr int kScalableUnitsPerPod = 4;
inline constexpr double kPodOversubscription = 1.0;

/// AWS per-flow TCP limits (instances.md 2.2): inside a cluster placement group, and outside.
inline constexpr double kTcpFlowCapClusterGbps = 10.0;
inline constexpr double kTcpFlowCapOtherGbps = 5.0;

/// Largest GPU / NIC / socket counts per host the loader and builder accept (no real machine
/// is close; the limits keep a corrupt file from allocating without bound).
inline constexpr int kMaxGpusPerHost = 64;
inline constexpr int kMaxNicsPerHost = 64;
/// Largest multi-node NVLink domain accepted, in hosts (NVLink Switch systems reach 576 GPUs).
inline constexpr int kMaxNvlinkDomainHosts = 576;
inline constexpr int kMaxSocketsPerHost = 8;
/// Largest gpu.sm_count the loader accepts (GPUs have a few hundred; it refuses nonsense).
inline constexpr int kMaxSmCount = 4096;

/// The generic cluster of `topotune schedule --ranks N` (no catalog instance), on which its
/// summary prints the closed-form time: round figures of an NVSwitch node with one 100 Gb/s
/// NIC per GPU. ASSUMPTIONS, stated in the summary itself; no instance uses them.
inline constexpr double kGenericNvSwitchGBps = 150;  ///< per GPU
inline constexpr double kGenericNvSwitchLatencyUs = 2;
inline constexpr double kGenericNicGbps = 100;  ///< one NIC per GPU
inline constexpr double kGenericNicLatencyUs = 10;
inline constexpr double kGenericPcieGBps = 25;  ///< PCIe 4.0 x16, GPU to CPU
inline constexpr double kGenericPcieLatencyUs = 3;
inline constexpr double kGenericNetToCpuLatencyUs = 12;  ///< NIC to a CPU parameter server
inline constexpr double kGenericGpuReduceGBps = 500;
inline constexpr double kGenericCpuReduceGBps = 20;

/// Default per-link-class parameters (latency per hop, efficiency) for a placement.
/// cluster: one non-blocking segment; partition/spread: an extra spine tier with more latency
/// per hop. All ASSUMPTIONS (docs/model.md), to be fitted by calibration.
std::array<LinkClassParams, kNumLinkKinds> default_link_params(Placement placement);

}  // namespace topotune::topo
