// Consistency rules of an InstanceSpec (see instance_validate.h and docs/instance-schema.md).

#include "topology/instance_validate.h"

#include <string>
#include <vector>

#include "topology/model_defaults.h"

namespace topotune::topo {
namespace {

Unexpected bad(const std::string& field, const std::string& what) {
  return fail(Errc::InvalidArgument, field + ": " + what);
}

bool positive(const std::optional<BytesPerSec>& b) { return !b || b->value > 0; }

Expected<void> check_counts(const InstanceSpec& inst) {
  if (inst.num_gpus < 1 || inst.num_gpus > kMaxGpusPerHost)
    return bad("gpu.count", "must be in 1.." + std::to_string(kMaxGpusPerHost) + ", got " +
                                std::to_string(inst.num_gpus));
  if (inst.num_nics < 1 || inst.num_nics > kMaxNicsPerHost)
    return bad("network.nics", "must be in 1.." + std::to_string(kMaxNicsPerHost) + ", got " +
                                   std::to_string(inst.num_nics));
  if (inst.cpu_sockets < 1 || inst.cpu_sockets > kMaxSocketsPerHost)
    return bad("host.cpu_sockets", "must be in 1.." + std::to_string(kMaxSocketsPerHost) +
                                       ", got " + std::to_string(inst.cpu_sockets));
  if (!(inst.nic_bandwidth.value > 0)) return bad("network.nic_Gbps", "must be > 0");
  if (!positive(inst.pcie_bandwidth)) return bad("host.pcie_GBps", "must be > 0");
  if (!positive(inst.cpu_interconnect_bandwidth))
    return bad("host.cpu_interconnect_GBps", "must be > 0");
  if (!positive(inst.cpu_reduce_bandwidth)) return bad("host.cpu_reduce_GBps", "must be > 0");
  if (!positive(inst.gpu.memory_bandwidth)) return bad("gpu.memory_bandwidth_GBps", "must be > 0");
  if (!positive(inst.gpu.reduce_bandwidth)) return bad("gpu.reduce_bandwidth_GBps", "must be > 0");
  return {};
}

Expected<void> check_nvlink(const InstanceSpec& inst) {
  if (inst.nvlink_domain_hosts < 1 || inst.nvlink_domain_hosts > kMaxNvlinkDomainHosts)
    return bad("intra.nvlink_domain_hosts",
               "must be in 1.." + std::to_string(kMaxNvlinkDomainHosts));
  if (inst.nvlink_domain_hosts > 1 && inst.fabric != IntraFabric::NvSwitch)
    return bad("intra.nvlink_domain_hosts", "only for nvswitch");
  if (inst.fabric == IntraFabric::PcieOnly) {
    if (!inst.nvlink_pairs.empty()) return bad("intra.nvlink_pairs", "only for nvlink_mesh");
    return {};
  }
  if (!(inst.nvlink_bandwidth_per_link.value > 0))
    return bad("intra.nvlink_GBps_per_link", "must be > 0");
  if (inst.nvlinks_per_gpu < 1 || inst.nvlinks_per_gpu > 64)
    return bad("intra.nvlinks_per_gpu", "must be in 1..64");
  if (inst.fabric == IntraFabric::NvSwitch) {
    if (!inst.nvlink_pairs.empty()) return bad("intra.nvlink_pairs", "only for nvlink_mesh");
    return {};
  }
  std::vector<int> used(static_cast<std::size_t>(inst.num_gpus), 0);
  for (std::size_t i = 0; i < inst.nvlink_pairs.size(); ++i) {
    const NvLinkPair& p = inst.nvlink_pairs[i];
    const std::string field = "intra.nvlink_pairs[" + std::to_string(i) + "]";
    if (p.a < 0 || p.a >= inst.num_gpus || p.b < 0 || p.b >= inst.num_gpus || p.a == p.b)
      return bad(field, "GPU index out of range 0.." + std::to_string(inst.num_gpus - 1) +
                            " or a GPU linked to itself");
    if (p.links < 1) return bad(field, "link count must be >= 1");
    used[static_cast<std::size_t>(p.a)] += p.links;
    used[static_cast<std::size_t>(p.b)] += p.links;
    if (used[static_cast<std::size_t>(p.a)] > inst.nvlinks_per_gpu ||
        used[static_cast<std::size_t>(p.b)] > inst.nvlinks_per_gpu)
      return bad(field, "a GPU would have more than nvlinks_per_gpu = " +
                            std::to_string(inst.nvlinks_per_gpu) + " NVLinks");
  }
  return {};
}

Expected<void> check_index_list(const std::vector<int>& list, int count, std::vector<int>& seen,
                                const std::string& field, const char* what) {
  for (int v : list) {
    if (v < 0 || v >= count)
      return bad(field, std::string(what) + " index " + std::to_string(v) + " out of range 0.." +
                            std::to_string(count - 1));
    if (seen[static_cast<std::size_t>(v)]++)
      return bad(field, std::string(what) + " " + std::to_string(v) +
                            " is under more than one PCIe switch");
  }
  return {};
}

Expected<void> check_pcie(const InstanceSpec& inst) {
  std::vector<int> gpu_seen(static_cast<std::size_t>(inst.num_gpus), 0);
  std::vector<int> nic_seen(static_cast<std::size_t>(inst.num_nics), 0);
  for (std::size_t i = 0; i < inst.pcie_switches.size(); ++i) {
    const PcieSwitchSpec& s = inst.pcie_switches[i];
    const std::string field = "host.pcie_switches[" + std::to_string(i) + "]";
    if (s.socket < 0 || s.socket >= inst.cpu_sockets)
      return bad(field + ".socket",
                 "socket " + std::to_string(s.socket) +
                     " out of range (cpu_sockets = " + std::to_string(inst.cpu_sockets) + ")");
    TT_TRY_VOID(check_index_list(s.gpus, inst.num_gpus, gpu_seen, field + ".gpus", "GPU"));
    TT_TRY_VOID(check_index_list(s.nics, inst.num_nics, nic_seen, field + ".nics", "NIC"));
  }
  return {};
}

Expected<void> check_sockets(const std::vector<int>& list, int count, int sockets,
                             const std::string& field, const std::string& count_field) {
  if (static_cast<int>(list.size()) != count)
    return bad(field, "has " + std::to_string(list.size()) + " entries, " + count_field + " is " +
                          std::to_string(count));
  for (int s : list)
    if (s < 0 || s >= sockets)
      return bad(field, "socket " + std::to_string(s) +
                            " out of range (cpu_sockets = " + std::to_string(sockets) + ")");
  return {};
}

}  // namespace

Expected<void> validate_instance(const InstanceSpec& inst) {
  TT_TRY_VOID(check_counts(inst));
  TT_TRY_VOID(check_nvlink(inst));
  TT_TRY_VOID(check_pcie(inst));
  TT_TRY_VOID(check_sockets(inst.gpu_socket, inst.num_gpus, inst.cpu_sockets, "host.gpu_socket",
                            "gpu.count"));
  TT_TRY_VOID(check_sockets(inst.nic_socket, inst.num_nics, inst.cpu_sockets, "host.nic_socket",
                            "network.nics"));
  return {};
}

InstanceSpec complete_instance(InstanceSpec inst) {
  const int sockets = inst.cpu_sockets < 1 ? 1 : inst.cpu_sockets;
  if (inst.gpu_socket.empty())
    for (int g = 0; g < inst.num_gpus; ++g) inst.gpu_socket.push_back(g * sockets / inst.num_gpus);
  if (inst.nic_socket.empty())
    for (int n = 0; n < inst.num_nics; ++n) inst.nic_socket.push_back(n * sockets / inst.num_nics);
  return inst;
}

}  // namespace topotune::topo
