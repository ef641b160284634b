#include "algorithms/nccl/nccl_system.h"

#include <algorithm>
#include <charconv>
#include <string>

#include "topology/model_defaults.h"

namespace topotune::algo {
namespace {

int arch_row_of(topo::GpuArch a) {
  switch (a) {
    case topo::GpuArch::Volta:
    case topo::GpuArch::Turing:
      return 0;
    case topo::GpuArch::Ampere:
    case topo::GpuArch::Unknown:
      return 1;
    case topo::GpuArch::Hopper:
      return 2;
    case topo::GpuArch::Blackwell:
      return 3;
  }
  return 1;
}

// NCCL's minCompCap of the GPU: by architecture, and within Blackwell by model, since NCCL
// 2.25-2.26 enable LL128 for sm_100 but not for sm_103 (NVIDIA's CUDA GPU list,
// developer.nvidia.com/cuda-gpus: GB200 and B200 10.0, GB300 and B300 10.3).
int compute_capability(topo::GpuArch a, const std::string& model) {
  switch (a) {
    case topo::GpuArch::Volta:
      return 70;
    case topo::GpuArch::Turing:
      return 75;
    case topo::GpuArch::Ampere:
    case topo::GpuArch::Unknown:
      return 80;
    case topo::GpuArch::Hopper:
      return 90;
    case topo::GpuArch::Blackwell:
      return model.find("B300") != std::string::npos ? 103 : 100;  // GB300 too
  }
  return 80;
}

// GPUs that share one NIC's PCIe switch (2 on p4d, 1 on DGX H100 and p5): from the instance's
// switch layout where it has one, else GPUs per NIC.
double gpus_per_nic_switch(const topo::InstanceSpec& inst) {
  for (const topo::PcieSwitchSpec& sw : inst.pcie_switches) {
    if (!sw.nics.empty() && !sw.gpus.empty()) {
      return static_cast<double>(sw.gpus.size()) / static_cast<double>(sw.nics.size());
    }
  }
  return inst.num_nics > 0 ? static_cast<double>(inst.num_gpus) / inst.num_nics : 1.0;
}

// Why a partial last NVLink domain is refused and what to run instead: a whole number of
// domains, or the partition the job ran in as a domain size that divides the host count.
std::string partial_domain_message(int hosts, int domain) {
  std::string divisors;
  for (int d = domain - 1; d >= 2; --d) {
    if (hosts % d == 0) divisors += (divisors.empty() ? "" : ", ") + std::to_string(d);
  }
  if (divisors.empty()) divisors = "1, NVLink ending at the host";
  const std::string h = std::to_string(hosts), n = std::to_string(domain);
  return h + " hosts leave a partial NVLink domain of " + std::to_string(hosts % domain) +
         " after " + std::to_string(hosts / domain) + " full domain(s) of " + n +
         " hosts. NCCL runs unequal MNNVL cliques (every rank keeps the smallest channel count "
         "and bandwidth of all cliques: src/init.cc, v2.28.7-1), but this NCCL model times "
         "equal nodes, one per domain. Use a multiple of " +
         n +
         " hosts, or a cluster file whose \"overrides\" set \"intra.nvlink_domain_hosts\" to "
         "the NVLink partition the job ran in, dividing " +
         h + " (" + divisors + "); simulate models the partial domain as built";
}

// Hosts per node as NCCL counts them. With multi-node NVLink, NCCL (since 2.20; MNNVL_ENABLE
// defaults to 2, auto: src/init.cc at v2.28.7-1) fuses the topology of every GPU of the
// NVLink clique into one system (ncclTopoGetSystem, src/graph/topo.cc at v2.28.7-1: the XML of
// the clique's ranks, GPUs and NICs alike) and counts one node per clique (init.cc: nNodes
// from each rank's first ring peer), so a domain is one node of its hosts' GPUs and NICs.
// NCCL itself runs unequal cliques: each rank searches its own clique's graphs, then every
// rank keeps the smallest channel count and bandwidths and the largest path types over all
// ranks (init.cc at v2.28.7-1, AllGather3; minLocalRanks/maxLocalRanks per node). This model
// times one node size, so a partial last domain is refused with what to run instead.
Expected<int> mnnvl_clique_hosts(const topo::ClusterSpec& spec) {
  const topo::InstanceSpec& inst = spec.instance;
  if (inst.fabric != topo::IntraFabric::NvSwitch || inst.nvlink_domain_hosts < 2) return 1;
  const int domain = std::min(inst.nvlink_domain_hosts, spec.hosts);
  if (spec.hosts % domain == 0) return domain;
  return fail(Errc::Unsupported, partial_domain_message(spec.hosts, domain));
}

bool read_int(const std::string& s, std::size_t& pos, int& out) {
  const char* first = s.data() + pos;
  const char* last = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(first, last, out);
  if (ec != std::errc() || ptr == first || out < 0) return false;
  pos = static_cast<std::size_t>(ptr - s.data());
  return true;
}

}  // namespace

std::string nccl_release_name(int code) {
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." +
         std::to_string(code % 100);
}

std::string NcclVersion::str() const { return known ? nccl_release_name(code()) : "latest"; }

Expected<NcclVersion> parse_nccl_version(const std::string& text) {
  NcclVersion v;
  std::size_t pos = 0;
  const auto bad = [&text] {
    return fail(Errc::InvalidArgument,
                "bad NCCL version '" + text + "' (expected MAJOR.MINOR[.PATCH], e.g. 2.23.4)");
  };
  if (!read_int(text, pos, v.major) || pos >= text.size() || text[pos] != '.') return bad();
  ++pos;
  if (!read_int(text, pos, v.minor)) return bad();
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    if (!read_int(text, pos, v.patch)) return bad();
  }
  if (pos < text.size() && text[pos] != '+' && text[pos] != '-') return bad();
  // A release code holds minor and patch in two digits each (nccl_release_code); a larger
  // figure would alias another release, and a huge major overflows the code.
  if (v.major > 99 || v.minor > 99 || v.patch > 99) {
    return fail(Errc::InvalidArgument,
                "bad NCCL version '" + text + "' (major, minor and patch must each be 0..99)");
  }
  v.known = true;
  return v;
}

NicClass nic_class_of(const topo::InstanceSpec& inst) {
  switch (inst.transport) {
    case topo::NetTransport::InfiniBand:
      return NicClass::InfiniBand;
    case topo::NetTransport::Roce:
      // NCCL runs RoCE ports through its IB verbs transport, the same code as InfiniBand
      // (NVIDIA/nccl src/transport/net_ib.cc at v2.28.3-1 takes ports whose link layer is
      // IBV_LINK_LAYER_INFINIBAND or IBV_LINK_LAYER_ETHERNET alike), so NCCL's choice is the
      // same; what a step costs is not (an Ethernet fabric, the cloud's own net plugin): a
      // class of its own, fitted on the RoCE runs.
      return NicClass::Roce;
    case topo::NetTransport::Tcp:
      return NicClass::Tcp;
    case topo::NetTransport::GpuDirectTcpx:
      return NicClass::Tcpx;
    case topo::NetTransport::GpuDirectTcpxo:
      return NicClass::Tcpxo;
    case topo::NetTransport::Efa: {
      // EFA v2+ has RDMA write; when the generation is unknown, Hopper+ instances ship v2+.
      const bool rdma = inst.efa_version ? *inst.efa_version >= 2 : arch_row_of(inst.gpu.arch) >= 2;
      return rdma ? NicClass::EfaRdma : NicClass::EfaSrd;
    }
  }
  return NicClass::InfiniBand;
}

Expected<NcclSystem> nccl_system_from_cluster(const topo::ClusterSpec& spec) {
  const topo::InstanceSpec& inst = spec.instance;
  if (inst.num_gpus < 1 || spec.hosts < 1) {
    return fail(Errc::InvalidArgument, "cluster has no GPUs or no hosts");
  }
  NcclSystem s;
  s.instance = inst.name;
  TT_TRY(const int domain, mnnvl_clique_hosts(spec));
  s.nodes = spec.hosts / domain;
  s.gpus_per_node = inst.num_gpus * domain;
  s.arch_row = arch_row_of(inst.gpu.arch);
  s.cc = compute_capability(inst.gpu.arch, inst.gpu.model);
  s.sm90 = s.arch_row >= 2;
  s.intra = inst.fabric;
  if (s.intra == topo::IntraFabric::PcieOnly) {
    // Without NVLink, GPU-to-GPU traffic crosses each GPU's own PCIe link (Gen3 x16 if unknown).
    s.gpu_intra_bandwidth = inst.pcie_bandwidth.value_or(gbyte_per_sec(topo::kDefaultPcieGBps));
  } else {
    s.gpu_intra_bandwidth = inst.nvlink_bandwidth_per_link * inst.nvlinks_per_gpu;
    s.nvlinks_per_gpu = inst.nvlinks_per_gpu;
    if (s.intra == topo::IntraFabric::NvLinkMesh && s.nvlinks_per_gpu == 0) {
      for (const topo::NvLinkPair& pr : inst.nvlink_pairs) {
        if (pr.a == 0 || pr.b == 0) s.nvlinks_per_gpu += pr.links;
      }
      s.gpu_intra_bandwidth = inst.nvlink_bandwidth_per_link * s.nvlinks_per_gpu;
    }
  }
  s.pcie_bandwidth = inst.pcie_bandwidth.value_or(BytesPerSec{0});
  s.nvls = inst.nvls && s.intra == topo::IntraFabric::NvSwitch;
  s.nics_per_node = inst.num_nics * domain;
  s.nic_bandwidth = inst.nic_bandwidth;
  s.gpudirect_rdma = inst.gpudirect_rdma;
  s.gpus_per_nic_switch = gpus_per_nic_switch(inst);
  s.amd_cpu = inst.cpu_model && inst.cpu_model->find("AMD") != std::string::npos;
  s.nic_class = nic_class_of(inst);
  if (s.nodes > 1 && (s.nics_per_node < 1 || s.nic_bandwidth.value <= 0)) {
    return fail(Errc::InvalidArgument, "instance '" + inst.name + "' has no NIC bandwidth");
  }
  return s;
}

}  // namespace topotune::algo
