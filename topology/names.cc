// Names of the topology enums, used in messages, tables, JSON and DOT output.

#include <string>

#include "topology/cluster_spec.h"
#include "topology/instance_spec.h"
#include "topology/topology.h"

namespace topotune::topo {

const char* device_kind_name(DeviceKind k) {
  switch (k) {
    case DeviceKind::Gpu:
      return "gpu";
    case DeviceKind::NvSwitch:
      return "nvswitch";
    case DeviceKind::PcieSwitch:
      return "pcie_switch";
    case DeviceKind::Cpu:
      return "cpu";
    case DeviceKind::Nic:
      return "nic";
    case DeviceKind::TorSwitch:
      return "tor";
    case DeviceKind::Spine:
      return "spine";
    case DeviceKind::SuperSpine:
      return "superspine";
  }
  return "?";
}

const char* link_kind_name(LinkKind k) {
  switch (k) {
    case LinkKind::NvLink:
      return "nvlink";
    case LinkKind::Pcie:
      return "pcie";
    case LinkKind::CpuInterconnect:
      return "cpu_interconnect";
    case LinkKind::Network:
      return "network";
    case LinkKind::Uplink:
      return "uplink";
  }
  return "?";
}

const char* placement_name(Placement p) {
  switch (p) {
    case Placement::Cluster:
      return "cluster";
    case Placement::Partition:
      return "partition";
    case Placement::Spread:
      return "spread";
  }
  return "?";
}

Expected<Placement> parse_placement(const std::string& name) {
  for (Placement p : {Placement::Cluster, Placement::Partition, Placement::Spread}) {
    if (name == placement_name(p)) return p;
  }
  return fail(Errc::InvalidArgument,
              "unknown placement '" + name + "' (expected cluster, partition or spread)");
}

const char* arch_name(GpuArch a) {
  switch (a) {
    case GpuArch::Volta:
      return "volta";
    case GpuArch::Turing:
      return "turing";
    case GpuArch::Ampere:
      return "ampere";
    case GpuArch::Hopper:
      return "hopper";
    case GpuArch::Blackwell:
      return "blackwell";
    case GpuArch::Unknown:
      return "unknown";
  }
  return "?";
}

const char* fabric_name(IntraFabric f) {
  switch (f) {
    case IntraFabric::NvSwitch:
      return "nvswitch";
    case IntraFabric::NvLinkMesh:
      return "nvlink_mesh";
    case IntraFabric::PcieOnly:
      return "pcie";
  }
  return "?";
}

const char* transport_name(NetTransport t) {
  switch (t) {
    case NetTransport::Efa:
      return "efa";
    case NetTransport::InfiniBand:
      return "infiniband";
    case NetTransport::Roce:
      return "roce";
    case NetTransport::Tcp:
      return "tcp";
    case NetTransport::GpuDirectTcpx:
      return "gpudirect_tcpx";
    case NetTransport::GpuDirectTcpxo:
      return "gpudirect_tcpxo";
  }
  return "?";
}

}  // namespace topotune::topo
