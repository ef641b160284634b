// Names of the topology enums, used in messages, tables, JSON and DOT output: one table per
// enum (core/enum_names.h) for both directions.

#include <optional>
#include <string>

#include "core/enum_names.h"
#include "topology/cluster_spec.h"
#include "topology/instance_spec.h"
#include "topology/topology.h"

namespace topotune::topo {
namespace {

constexpr auto kDeviceKindNames = enum_names<DeviceKind>({
    {DeviceKind::Gpu, "gpu"},
    {DeviceKind::NvSwitch, "nvswitch"},
    {DeviceKind::PcieSwitch, "pcie_switch"},
    {DeviceKind::Cpu, "cpu"},
    {DeviceKind::Nic, "nic"},
    {DeviceKind::TorSwitch, "tor"},
    {DeviceKind::Spine, "spine"},
    {DeviceKind::SuperSpine, "superspine"},
});

constexpr auto kLinkKindNames = enum_names<LinkKind>({
    {LinkKind::NvLink, "nvlink"},
    {LinkKind::Pcie, "pcie"},
    {LinkKind::CpuInterconnect, "cpu_interconnect"},
    {LinkKind::Network, "network"},
    {LinkKind::Uplink, "uplink"},
});

constexpr auto kPlacementNames = enum_names<Placement>({
    {Placement::Cluster, "cluster"},
    {Placement::Partition, "partition"},
    {Placement::Spread, "spread"},
});

constexpr auto kArchNames = enum_names<GpuArch>({
    {GpuArch::Volta, "volta"},
    {GpuArch::Turing, "turing"},
    {GpuArch::Ampere, "ampere"},
    {GpuArch::Hopper, "hopper"},
    {GpuArch::Blackwell, "blackwell"},
    {GpuArch::Unknown, "unknown"},
});

constexpr auto kFabricNames = enum_names<IntraFabric>({
    {IntraFabric::NvSwitch, "nvswitch"},
    {IntraFabric::NvLinkMesh, "nvlink_mesh"},
    {IntraFabric::PcieOnly, "pcie"},
});

constexpr auto kTransportNames = enum_names<NetTransport>({
    {NetTransport::Efa, "efa"},
    {NetTransport::InfiniBand, "infiniband"},
    {NetTransport::Roce, "roce"},
    {NetTransport::Tcp, "tcp"},
    {NetTransport::GpuDirectTcpx, "gpudirect_tcpx"},
    {NetTransport::GpuDirectTcpxo, "gpudirect_tcpxo"},
});

}  // namespace

const char* device_kind_name(DeviceKind k) { return kDeviceKindNames.name_of(k); }

const char* link_kind_name(LinkKind k) { return kLinkKindNames.name_of(k); }

const char* placement_name(Placement p) { return kPlacementNames.name_of(p); }

Expected<Placement> parse_placement(const std::string& name) {
  if (const std::optional<Placement> p = kPlacementNames.find(name)) return *p;
  // Worded before the shared "known: ..." message; tests and scripts match it.
  return fail(Errc::InvalidArgument, "unknown placement '" + name + "' (expected " +
                                         kPlacementNames.names_text(", ", " or ") + ")");
}

const char* arch_name(GpuArch a) { return kArchNames.name_of(a); }

const char* fabric_name(IntraFabric f) { return kFabricNames.name_of(f); }

const char* transport_name(NetTransport t) { return kTransportNames.name_of(t); }

}  // namespace topotune::topo
