// DOT export: host 0 in detail, the other hosts as one box, and the network tier. Each
// full-duplex cable (a pair of links, added together by the builder) is drawn once.

#include <map>
#include <sstream>
#include <string_view>

#include "core/quantity_parse.h"
#include "topology/topology_export.h"

namespace topotune::topo {
namespace {

constexpr int kMaxDrawnRacks = 8;  // beyond this, racks are summarised in one node

const char* node_style(DeviceKind k) {
  switch (k) {
    case DeviceKind::Gpu:
      return "shape=box, style=filled, fillcolor=\"#b3e2cd\"";
    case DeviceKind::NvSwitch:
      return "shape=octagon, style=filled, fillcolor=\"#fdcdac\"";
    case DeviceKind::PcieSwitch:
      return "shape=diamond, style=filled, fillcolor=\"#cbd5e8\"";
    case DeviceKind::Cpu:
      return "shape=box3d, style=filled, fillcolor=\"#f4cae4\"";
    case DeviceKind::Nic:
      return "shape=ellipse, style=filled, fillcolor=\"#e6f5c9\"";
    case DeviceKind::TorSwitch:
      return "shape=hexagon, style=filled, fillcolor=\"#fff2ae\"";
    case DeviceKind::Spine:
    case DeviceKind::SuperSpine:
      return "shape=doubleoctagon, style=filled, fillcolor=\"#f1e2cc\"";
  }
  return "shape=box";
}

const char* edge_colour(LinkKind k) {
  switch (k) {
    case LinkKind::NvLink:
      return "#1b9e77";
    case LinkKind::Pcie:
      return "#7570b3";
    case LinkKind::CpuInterconnect:
      return "#e7298a";
    case LinkKind::Network:
      return "#d95f02";
    case LinkKind::Uplink:
      return "#666666";
  }
  return "black";
}

bool drawn(const Topology& t, NodeId id) {
  const Device& d = t.device(id);
  if (d.host == 0) return true;
  if (d.host > 0) return false;
  return d.kind == DeviceKind::SuperSpine || d.index < kMaxDrawnRacks;
}

}  // namespace

std::string dot_quote(std::string_view text) {
  std::string q = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      q += '\\';  // \" is DOT's only escape; \\ keeps a trailing backslash from eating the quote
      q += c;
    } else if (c == '\n' || c == '\r') {
      q += "\\n";  // a line break in a label, never a raw newline in the file
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      q += ' ';
    } else {
      q += c;
    }
  }
  return q + "\"";
}

std::string topology_to_dot(const Topology& t) {
  std::ostringstream o;
  const ClusterSpec& spec = t.spec();
  const std::string title = spec.instance.name + " x " + std::to_string(t.num_hosts()) + " (" +
                            placement_name(spec.placement) + " placement, " +
                            std::to_string(t.num_racks()) +
                            (t.num_racks() == 1 ? " rack" : " racks") + ")";
  o << "graph topotune {\n  graph [fontname=\"Helvetica\", label=" << dot_quote(title)
    << ", labelloc=t];\n"
    << "  node [fontname=\"Helvetica\", fontsize=10];\n"
    << "  edge [fontname=\"Helvetica\", fontsize=8];\n"
    << "  subgraph cluster_node0 {\n    label=\"node 0"
    << (t.num_hosts() > 1 ? " (every node alike)" : "") << "\";\n    style=rounded;\n";
  // Host 0's devices, one row per kind (GPUs above their switches, NICs and CPUs below).
  std::map<DeviceKind, std::string> rows;
  for (std::size_t i = 0; i < t.num_devices(); ++i) {
    const NodeId id(static_cast<std::int32_t>(i));
    const Device& d = t.device(id);
    if (!drawn(t, id)) continue;
    o << (d.host == 0 ? "    " : "  ") << dot_quote(d.name) << " [" << node_style(d.kind)
      << ", label=" << dot_quote(d.name) << "];\n";
    if (d.host == 0) rows[d.kind] += " " + dot_quote(d.name) + ";";
    const bool last_of_host0 =
        d.host == 0 &&
        (i + 1 == t.num_devices() || t.device(NodeId(static_cast<std::int32_t>(i + 1))).host != 0);
    if (!last_of_host0) continue;
    for (const auto& [kind, names] : rows) o << "    {rank=same;" << names << "}\n";
    o << "  }\n";
  }
  if (t.num_racks() > kMaxDrawnRacks)
    o << "  \"more racks\" [shape=note, label=\"" << t.num_racks() - kMaxDrawnRacks
      << " more racks\"];\n";
  // Hosts 1.. summarised per rack.
  std::map<int, int> others_per_rack;
  for (int h = 1; h < t.num_hosts(); ++h) ++others_per_rack[t.rack_of_host(h)];
  const InstanceSpec& in = spec.instance;
  for (const auto& [rack, count] : others_per_rack) {
    if (rack >= kMaxDrawnRacks) continue;
    o << "  \"rack" << rack << "-nodes\" [shape=box3d, label=\"" << count
      << (count == 1 ? " other node" : " other nodes") << "\"];\n"
      << "  \"rack" << rack << "-nodes\" -- \"tor" << rack << "\" [color=\""
      << edge_colour(LinkKind::Network) << "\", label=\"" << in.num_nics << " x "
      << format_rate(in.nic_bandwidth) << " each\"];\n";
  }
  for (std::size_t i = 0; i < t.num_links(); i += 2) {
    const Link& l = t.link(LinkId(static_cast<std::int32_t>(i)));
    if (!drawn(t, l.src) || !drawn(t, l.dst)) continue;
    // dot ranks an edge's first node above its second: draw NICs below their switch or CPU.
    const bool flip = t.device(l.src).kind == DeviceKind::Nic && l.kind == LinkKind::Pcie;
    const NodeId top = flip ? l.dst : l.src, bottom = flip ? l.src : l.dst;
    o << "  " << dot_quote(t.device(top).name) << " -- " << dot_quote(t.device(bottom).name)
      << " [color=\"" << edge_colour(l.kind) << "\", label="
      << dot_quote(std::string(link_kind_name(l.kind)) + " " + format_rate(l.nominal)) << "];\n";
  }
  o << "}\n";
  return o.str();
}

}  // namespace topotune::topo
