#include "emulation/cluster_model.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "emulation/link_model.h"
#include "topology/cpu_rank.h"

namespace topotune::emu {
namespace {

using nlohmann::json;

json figure(json value, const std::string& source) {
  return {{"value", std::move(value)}, {"source", source}};
}

json instance_json(const EmulationSpec& s) {
  const int r = s.ranks_per_node;
  const double nic_gbps = bits_per_sec(effective_payload_rate(s.nic_rate)) / 1e9;
  const std::string emu = "[emulated] topotune emulate up";
  std::vector<int> gpus(static_cast<std::size_t>(r));
  for (int g = 0; g < r; ++g) gpus[static_cast<std::size_t>(g)] = g;
  return {
      {"schema", "topotune.instance/1"},
      {"name", "emulated-" + std::to_string(r) + "x"},
      {"vendor", "custom"},
      {"description", std::to_string(r) + " ranks per host on loopback, one tbf-shaped NIC (" +
                          std::to_string(static_cast<long long>(bits_per_sec(s.nic_rate) / 1e6)) +
                          " Mbit/s)"},
      {"gpu",
       {{"count", figure(r, emu)},
        {"model", figure(topo::kCpuRankGpuModel, emu)},
        {"arch", figure("ampere", "[emulated] placeholder: ranks are CPU processes")}}},
      {"intra",
       {{"fabric", figure("nvswitch", "[emulated] shared memory between ranks of one host")},
        {"nvlink_GBps_per_link",
         figure(kLoopbackGBps, "[emulated] vader copy rate, order of magnitude")},
        {"nvlinks_per_gpu", figure(1, emu)},
        {"nvls", figure(false, emu)}}},
      {"host",
       {{"cpu_sockets", figure(1, emu)},
        {"cpu_reduce_GBps",
         figure(2.0, "[emulated] one core summing fp32 in memory, order of magnitude")},
        {"pcie_GBps", figure(kLoopbackGBps, "[emulated] no PCIe: memory copies")},
        {"pcie_switches",
         figure(json::array({{{"socket", 0}, {"gpus", gpus}, {"nics", {0}}}}), emu)}}},
      {"network",
       {{"nics", figure(1, emu)},
        {"nic_Gbps", figure(nic_gbps,
                            "[derived] tbf rate x 1448/1514 (TCP payload per frame) / "
                            "1.0218 (pure ACKs), testbed.md")},
        {"transport", figure("tcp", emu)},
        {"gpudirect_rdma", figure(false, emu)}}},
  };
}

}  // namespace

std::string emulated_cluster_json(const EmulationSpec& s) {
  // Efficiencies are 1: nic_Gbps is already the effective payload rate. Latencies: ping RTT
  // between namespaces is ~50 us (testbed.md), i.e. ~25 us one way through two veth hops; tbf
  // cannot add delay (netem is absent).
  json params = {{"nvlink", {{"latency_us", 5.0}, {"efficiency", 1.0}}},
                 {"pcie", {{"latency_us", 0.0}, {"efficiency", 1.0}}},
                 {"cpu_interconnect", {{"latency_us", 0.0}, {"efficiency", 1.0}}},
                 {"network", {{"latency_us", 12.5}, {"efficiency", 1.0}}},
                 {"uplink", {{"latency_us", 5.0}, {"efficiency", 1.0}}}};
  json j = {{"schema", topo::kClusterSchema},
            {"instance", instance_json(s)},
            {"nodes", s.nodes},
            {"placement", s.racks > 1 ? "partition" : "cluster"},
            {"link_params", params}};
  if (s.racks > 1) {
    // Rack uplink = rack NIC bandwidth / oversubscription (cluster_spec.h FabricParams); the
    // same payload share applies to both, so the ratio of the shaped rates is the ratio.
    const double rack_nic = bits_per_sec(s.nic_rate) * s.hosts_per_rack();
    const double up = s.uplink_rate ? bits_per_sec(*s.uplink_rate) : rack_nic;
    j["fabric"] = {{"hosts_per_rack", s.hosts_per_rack()},
                   {"oversubscription", std::max(1.0, rack_nic / up)}};
  } else {
    j["fabric"] = {{"hosts_per_rack", s.nodes}, {"oversubscription", 1.0}};
  }
  return j.dump(2) + "\n";
}

Expected<topo::ClusterSpec> emulated_cluster(const EmulationSpec& s) {
  return topo::parse_cluster_json(emulated_cluster_json(s), "emulated cluster.json");
}

}  // namespace topotune::emu
