// JSON and DOT export of a Topology, and the unknown-figure report.

#include "topology/topology_export.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/memory_budget.h"
#include "core/quantity_parse.h"
#include "topology/model_defaults.h"

namespace topotune::topo {
namespace {

std::string list_text(const std::vector<int>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

std::string default_for(const Topology& topo, const std::string& figure) {
  const InstanceSpec& in = topo.spec().instance;
  if (figure == "gpu.reduce_bandwidth_GBps")
    return format_rate(topo.reduce_bandwidth(topo.gpu_of(RankId(0)))) +
           (in.gpu.memory_bandwidth ? " (memory bandwidth / 3, assumed)" : " (assumed)");
  if (figure == "host.cpu_reduce_GBps")
    return format_rate(topo.reduce_bandwidth(topo.cpu_of_host(0))) + " (assumed)";
  if (figure == "host.cpu_interconnect_GBps")
    return format_rate(gbyte_per_sec(kDefaultCpuInterconnectGBps)) + " (assumed)";
  if (figure == "host.pcie_GBps") {
    const BytesPerSec pcie = default_pcie_bandwidth(in);
    return format_rate(pcie) + (pcie.value > gbyte_per_sec(kDefaultPcieGBps).value
                                    ? " (the NIC's line rate, assumed)"
                                    : " (PCIe Gen3 x16, assumed)");
  }
  if (figure == "host.pcie_switches")
    return "none: GPUs and NICs hang off their socket's root complex";
  if (figure == "host.gpu_socket") return "spread evenly: " + list_text(in.gpu_socket);
  if (figure == "host.nic_socket") return "spread evenly: " + list_text(in.nic_socket);
  if (figure == "gpu.memory_GiB")
    return "plans check fits against the smallest published figure where the catalog lists "
           "them, else none, and say so (a cluster file's override gpu.memory_GiB sets it)";
  if (figure == "gpu.memory_bandwidth_GBps")
    return "the GPU reduce default; plan's compute roofline takes the fit GPUs' balance";
  if (figure == "gpu.peak_fp16_TFLOPS" || figure == "gpu.peak_fp32_TFLOPS" ||
      figure == "gpu.peak_tf32_TFLOPS")
    return "plan asks for --peak-tflops at that precision, or plans at both ends of the "
           "published figures where the catalog lists them";
  if (figure == "gpu.sm_count") return "plan charges no SMs to NCCL's channels";
  return "not used by the model";
}

}  // namespace

std::vector<UnknownFigure> unknown_figures(const Topology& topo) {
  const InstanceSpec& in = topo.spec().instance;
  std::vector<UnknownFigure> out;
  for (const std::string& f : in.unknowns) {
    const auto it = in.sources.find(f);
    std::string note = it == in.sources.end() ? "" : it->second;
    if (note.starts_with("unknown: ")) note = note.substr(9);
    out.push_back({f, note, default_for(topo, f)});
  }
  return out;
}

std::vector<NvLinkDomain> nvlink_domains(const Topology& topo) {
  const int g = topo.gpus_per_host();
  std::vector<int> parent(static_cast<std::size_t>(g));
  for (int i = 0; i < g; ++i) parent[i] = i;
  std::function<int(int)> root = [&](int x) {
    return parent[x] == x ? x : parent[x] = root(parent[x]);
  };
  std::vector<double> bw(static_cast<std::size_t>(g), 0.0);
  for (int i = 0; i < g; ++i) {
    for (LinkId l : topo.out_links(topo.gpu_of(RankId(i)))) {
      const Link& link = topo.link(l);
      if (link.kind != LinkKind::NvLink) continue;
      bw[i] += link.nominal.value;
      const Device& d = topo.device(link.dst);
      // NVSwitch: every GPU of the host is in one domain.
      const int other = d.kind == DeviceKind::Gpu ? d.index : 0;
      parent[root(i)] = root(other);
    }
  }
  std::vector<NvLinkDomain> out;
  for (int r = 0; r < g; ++r) {
    NvLinkDomain dom;
    double min_bw = 0;
    for (int i = 0; i < g; ++i)
      if (root(i) == r && bw[i] > 0) {
        min_bw = dom.gpus.empty() ? bw[i] : std::min(min_bw, bw[i]);
        dom.gpus.push_back(i);
      }
    dom.per_gpu_bandwidth = BytesPerSec(min_bw);
    if (dom.gpus.size() >= 2) out.push_back(std::move(dom));
  }
  return out;
}

namespace {

// gpus, nics and switches arrays, in device order.
void add_devices(const Topology& topo, nlohmann::json& doc) {
  using nlohmann::json;
  const ClusterSpec& spec = topo.spec();
  doc["gpus"] = json::array();
  doc["nics"] = json::array();
  doc["switches"] = json::array();
  for (std::size_t i = 0; i < topo.num_devices(); ++i) {
    const Device& d = topo.device(NodeId(static_cast<std::int32_t>(i)));
    json e = {
        {"id", d.name}, {"kind", device_kind_name(d.kind)}, {"node", d.host}, {"index", d.index}};
    if (d.kind == DeviceKind::Gpu) {
      e["rank"] = d.host * topo.gpus_per_host() + d.index;
      e["model"] = spec.instance.gpu.model;
      e["rails"] = topo.nics_of_gpu(d.index);
      doc["gpus"].push_back(e);
    } else if (d.kind == DeviceKind::Nic) {
      e["bandwidth_Bps"] = spec.instance.nic_bandwidth.value;
      e["transport"] = transport_name(spec.instance.transport);
      doc["nics"].push_back(e);
    } else if (d.kind == DeviceKind::TorSwitch || d.kind == DeviceKind::Spine ||
               d.kind == DeviceKind::SuperSpine) {
      e.erase("node");
      doc["switches"].push_back(e);
    }
  }
}

}  // namespace

Bytes topology_json_memory(const Topology& topo) {
  constexpr std::int64_t kBytesPerElement = 1200;
  const auto elements = static_cast<std::int64_t>(topo.num_links() + topo.num_devices());
  return Bytes(saturating_mul(elements, kBytesPerElement));
}

std::vector<LinkClassSummary> link_classes(const Topology& topo) {
  std::vector<LinkClassSummary> out;
  for (int k = 0; k < kNumLinkKinds; ++k) {
    LinkClassSummary c;
    c.kind = static_cast<LinkKind>(k);
    std::set<double> rates;
    for (std::size_t i = 0; i < topo.num_links(); ++i) {
      const Link& l = topo.link(LinkId(static_cast<std::int32_t>(i)));
      if (l.kind != c.kind) continue;
      ++c.links;
      rates.insert(l.nominal.value);
    }
    if (c.links == 0) continue;
    for (double r : rates) c.nominal.push_back(BytesPerSec(r));
    c.efficiency = topo.spec().params(c.kind).efficiency;
    c.latency = topo.spec().params(c.kind).latency;
    out.push_back(std::move(c));
  }
  return out;
}

std::string topology_to_json(const Topology& topo) {
  using nlohmann::json;
  const ClusterSpec& spec = topo.spec();
  json doc;
  doc["instance"] = spec.instance.name;
  doc["nodes"] = topo.num_hosts();
  doc["placement"] = placement_name(spec.placement);
  doc["racks"] = topo.num_racks();
  if (topo.num_pods() > 1) doc["pods"] = topo.num_pods();  // under a super-spine
  doc["gpus_per_node"] = topo.gpus_per_host();
  add_devices(topo, doc);
  doc["links"] = json::array();
  for (std::size_t i = 0; i < topo.num_links(); ++i) {
    const Link& l = topo.link(LinkId(static_cast<std::int32_t>(i)));
    doc["links"].push_back({{"src", topo.device(l.src).name},
                            {"dst", topo.device(l.dst).name},
                            {"kind", link_kind_name(l.kind)},
                            {"bandwidth_Bps", l.nominal.value},
                            {"effective_bandwidth_Bps", l.bandwidth.value},
                            {"latency_s", l.latency.value}});
  }
  json domains = json::array();
  for (int h = 0; h < topo.num_hosts(); ++h)
    for (const NvLinkDomain& d : nvlink_domains(topo)) {
      std::vector<int> ranks;
      for (int g : d.gpus) ranks.push_back(h * topo.gpus_per_host() + g);
      domains.push_back(
          {{"node", h}, {"gpus", ranks}, {"per_gpu_bandwidth_Bps", d.per_gpu_bandwidth.value}});
    }
  doc["nvlink_domains"] = domains;
  // Only where hosts share NVLink, so that every other export stays as it was.
  if (topo.num_nvlink_domains() > 0) {
    doc["multi_node_nvlink"] = {{"hosts_per_domain", topo.nvlink_domain_hosts()},
                                {"domains", topo.num_nvlink_domains()}};
  }
  doc["bisection_bandwidth_Bps"] = topo.bisection_bandwidth().value;
  doc["host_nic_bandwidth_Bps"] = topo.host_nic_bandwidth().value;
  json params = json::object();
  for (int k = 0; k < kNumLinkKinds; ++k) {
    const LinkClassParams& p = spec.link_params[static_cast<std::size_t>(k)];
    params[link_kind_name(static_cast<LinkKind>(k))] = {{"latency_s", p.latency.value},
                                                        {"efficiency", p.efficiency}};
  }
  doc["link_params"] = params;
  if (spec.fabric.per_flow_cap) doc["per_flow_cap_Bps"] = spec.fabric.per_flow_cap->value;
  doc["unknowns"] = json::array();
  for (const UnknownFigure& u : unknown_figures(topo))
    doc["unknowns"].push_back({{"figure", u.figure}, {"note", u.note}, {"model", u.model_default}});
  return doc.dump(2) + "\n";
}

}  // namespace topotune::topo
