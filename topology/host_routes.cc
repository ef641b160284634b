// Routes inside one host, computed once on the host template with Boost.Graph's Dijkstra.
//
// Weights make NVLink preferred over PCIe and PCIe over the socket interconnect, as NCCL's
// path search does (NVLink > PCIe switch > CPU). GPUs and NICs are endpoints, never transit:
// a GPU does not forward another GPU's traffic, so non-NVLink pairs of an NVLink mesh go over
// PCIe and the CPUs (nvidia-smi's SYS), not through a third GPU.

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <limits>
#include <string>

#include "topology/topology_impl.h"

namespace topotune::topo {
namespace {

using LocalGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<boost::edge_weight_t, int, boost::property<boost::edge_index_t, int>>>;
using LocalEdge = boost::graph_traits<LocalGraph>::edge_descriptor;

/// Longest route allowed inside a host; with the network legs a route stays <= kMaxHops.
constexpr int kMaxLocalHops = 6;

int weight_of(LinkKind k) {
  switch (k) {
    case LinkKind::NvLink:
      return 1;
    case LinkKind::Pcie:
      return 4;
    case LinkKind::CpuInterconnect:
      return 8;
    default:
      return 16;
  }
}

bool is_endpoint(DeviceKind k) { return k == DeviceKind::Gpu || k == DeviceKind::Nic; }

struct TransitFilter {
  const LocalGraph* g = nullptr;
  const std::vector<Device>* devices = nullptr;
  std::size_t source = 0;
  bool operator()(const LocalEdge& e) const {
    const std::size_t s = boost::source(e, *g);
    return s == source || !is_endpoint((*devices)[s].kind);
  }
};

// One Dijkstra per source device; the paths are stored as local link indices.
void routes_from(const LocalGraph& g, const std::vector<Device>& devices, std::size_t src,
                 HostTemplate& tm) {
  const std::size_t n = boost::num_vertices(g);
  TransitFilter filter{&g, &devices, src};
  boost::filtered_graph<LocalGraph, TransitFilter> fg(g, filter);
  std::vector<int> dist(n);
  std::vector<LocalEdge> pred(n);
  std::vector<bool> has_pred(n, false);
  auto record = [&](const LocalEdge& e) {
    pred[boost::target(e, g)] = e;
    has_pred[boost::target(e, g)] = true;
  };
  struct Visitor : boost::default_dijkstra_visitor {
    decltype(record)* rec;
    explicit Visitor(decltype(record)* r) : rec(r) {}
    void edge_relaxed(const LocalEdge& e, const boost::filtered_graph<LocalGraph, TransitFilter>&) {
      (*rec)(e);
    }
  };
  boost::dijkstra_shortest_paths(fg, src,
                                 boost::distance_map(dist.data()).visitor(Visitor(&record)));
  const auto index = boost::get(boost::edge_index, g);
  for (std::size_t dst = 0; dst < n; ++dst) {
    LocalRoute& r = tm.routes[src * n + dst];
    if (dst == src || !has_pred[dst]) continue;
    std::vector<int> rev;
    for (std::size_t v = dst; v != src; v = boost::source(pred[v], g))
      rev.push_back(index[pred[v]]);
    r.offset = static_cast<std::int32_t>(tm.hops.size());
    r.size = static_cast<std::int32_t>(rev.size());
    tm.hops.insert(tm.hops.end(), rev.rbegin(), rev.rend());
  }
}

LocalRoute concat(HostTemplate& tm, LocalRoute a, LocalRoute b) {
  LocalRoute r{static_cast<std::int32_t>(tm.hops.size()), a.size + b.size};
  for (int i = 0; i < a.size; ++i) tm.hops.push_back(tm.hops[a.offset + i]);
  for (int i = 0; i < b.size; ++i) tm.hops.push_back(tm.hops[b.offset + i]);
  return r;
}

// The NICs each local device uses, by preference: those on its PCIe switch, else those of its
// socket, else all (rail-aware: channel c takes the (c % count)-th).
void assign_device_nics(HostTemplate& tm, const std::vector<Device>& devices,
                        const std::vector<Link>& links, const InstanceSpec& inst) {
  const int n = tm.num_devices;
  std::vector<int> socket(n, 0);
  std::vector<std::vector<int>> switch_nics(n);
  for (int v = 0; v < n; ++v) {
    const Device& d = devices[v];
    if (d.kind == DeviceKind::Gpu) socket[v] = inst.gpu_socket[d.index];
    if (d.kind == DeviceKind::Nic) socket[v] = inst.nic_socket[d.index];
    if (d.kind == DeviceKind::Cpu) socket[v] = d.index;
    if (d.kind == DeviceKind::PcieSwitch) socket[v] = inst.pcie_switches[d.index].socket;
    if (d.kind == DeviceKind::PcieSwitch) switch_nics[v] = inst.pcie_switches[d.index].nics;
  }
  tm.device_nics.assign(n, {});
  for (int v = 0; v < n; ++v) {
    const Device& d = devices[v];
    std::vector<int>& out = tm.device_nics[v];
    if (d.kind == DeviceKind::Nic) out = {d.index};
    if (d.kind == DeviceKind::PcieSwitch) out = switch_nics[v];
    if (d.kind == DeviceKind::Gpu)
      for (const Link& l : links)
        if (l.src.index() == static_cast<std::size_t>(v) &&
            devices[l.dst.index()].kind == DeviceKind::PcieSwitch)
          out = switch_nics[l.dst.index()];
    if (out.empty() && d.kind != DeviceKind::NvSwitch)
      for (int k = 0; k < inst.num_nics; ++k)
        if (inst.nic_socket[k] == socket[v]) out.push_back(k);
    if (out.empty())
      for (int k = 0; k < inst.num_nics; ++k) out.push_back(k);
  }
}

}  // namespace

Expected<void> compute_host_routes(HostTemplate& tm, const std::vector<Device>& devices,
                                   const std::vector<Link>& links, const InstanceSpec& inst) {
  const std::size_t n = static_cast<std::size_t>(tm.num_devices);
  LocalGraph g(n);
  for (std::size_t i = 0; i < links.size(); ++i)
    boost::add_edge(links[i].src.index(), links[i].dst.index(),
                    LocalGraph::edge_property_type(weight_of(links[i].kind), static_cast<int>(i)),
                    g);
  tm.routes.assign(n * n, LocalRoute{});
  for (std::size_t s = 0; s < n; ++s) routes_from(g, devices, s, tm);
  assign_device_nics(tm, devices, links, inst);
  const std::size_t nics = tm.nic_local.size();
  tm.egress.assign(n * nics, LocalRoute{});
  tm.ingress.assign(nics * n, LocalRoute{});
  for (std::size_t v = 0; v < n; ++v) {
    const Device& d = devices[v];
    const bool staged = d.kind == DeviceKind::Gpu && !inst.gpudirect_rdma;
    // Without GPUDirect RDMA the NIC cannot read GPU memory: the bytes go through the host
    // memory of the GPU's socket (GPU -> CPU -> NIC), as aws-ofi-nccl does on p3dn.
    const std::size_t cpu =
        staged ? static_cast<std::size_t>(tm.cpu_local[inst.gpu_socket[d.index]]) : 0;
    for (std::size_t k = 0; k < nics; ++k) {
      const std::size_t nic = static_cast<std::size_t>(tm.nic_local[k]);
      LocalRoute& out = tm.egress[v * nics + k];
      LocalRoute& in = tm.ingress[k * n + v];
      out = staged ? concat(tm, tm.routes[v * n + cpu], tm.routes[cpu * n + nic])
                   : tm.routes[v * n + nic];
      in = staged ? concat(tm, tm.routes[nic * n + cpu], tm.routes[cpu * n + v])
                  : tm.routes[nic * n + v];
      const bool endpoint = d.kind == DeviceKind::Gpu || d.kind == DeviceKind::Cpu;
      if (endpoint && (out.size == 0 || in.size == 0))
        return fail(Errc::InvalidArgument,
                    devices[v].name + " cannot reach NIC " + std::to_string(k));
      if (out.size > kMaxLocalHops || in.size > kMaxLocalHops)
        return fail(Errc::Unsupported, "route from " + devices[v].name + " to NIC " +
                                           std::to_string(k) + " has more than " +
                                           std::to_string(kMaxLocalHops) + " hops");
    }
  }
  return {};
}

}  // namespace topotune::topo
