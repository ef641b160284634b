#pragma once
// A p4d.24xlarge-shaped NetworkModel for the benchmark when no Topology is available: per host
// 8 GPUs on an NVSwitch (300 GB/s per GPU per direction: 12 NVLinks x 25 GB/s), 4 PCIe switches
// each holding 2 GPUs and 1 NIC (15.75 GB/s PCIe Gen3 x16), 4 x 100 Gbps NICs (12.5 GB/s) into
// one non-blocking switch. GPUDirect RDMA: GPU -> PCIe switch -> NIC -> switch -> NIC -> PCIe
// switch -> GPU. Latencies: 1 us per NVLink/PCIe hop, 5 us per network hop (stand-in figures).
// Routes are computed arithmetically, so 8192 GPUs cost no route tables.

#include "simulator/network_model.h"

namespace topotune::bench {

class P4dStandInNetwork final : public sim::NetworkModel {
 public:
  static constexpr int kGpus = 8;
  // Per-host device layout: GPUs 0-7, NVSwitch 8, PCIe switches 9-12, NICs 13-16.
  static constexpr int kDevices = 17;
  // Per-host link layout (up = towards the switch side): 0-7 gpu->nvs, 8-15 nvs->gpu,
  // 16-23 gpu->pcie, 24-31 pcie->gpu, 32-35 pcie->nic, 36-39 nic->pcie, 40-43 nic->net,
  // 44-47 net->nic.
  static constexpr int kLinks = 48;

  explicit P4dStandInNetwork(int hosts) : hosts_(hosts) {}

  std::size_t num_links() const override { return static_cast<std::size_t>(hosts_) * kLinks; }
  std::size_t num_devices() const override {
    return static_cast<std::size_t>(hosts_) * kDevices + 1;
  }
  BytesPerSec link_bandwidth(LinkId l) const override {
    const int k = l.value % kLinks;
    if (k < 16) return gbyte_per_sec(300);
    if (k < 40) return gbyte_per_sec(15.75);
    return gbit_per_sec(100);
  }
  Expected<NodeId> device_of(const sched::Endpoint& e, EndpointId id) const override {
    if (e.kind != sched::EndpointKind::Rank || id.value >= hosts_ * kGpus) {
      return fail(Errc::InvalidSchedule, "endpoint not in the stand-in network");
    }
    return NodeId(id.value / kGpus * kDevices + id.value % kGpus);
  }
  topo::Route route(NodeId from, NodeId to, int /*channel*/) const override {
    const int ha = from.value / kDevices, a = from.value % kDevices;
    const int hb = to.value / kDevices, b = to.value % kDevices;
    topo::Route r;
    const auto add = [&](int host, int k, double latency) {
      r.links[static_cast<std::size_t>(r.size++)] = LinkId(host * kLinks + k);
      r.latency += Seconds(latency);
    };
    if (ha == hb) {
      add(ha, a, 1e-6);
      add(hb, 8 + b, 1e-6);
      r.bottleneck = gbyte_per_sec(300);
    } else {
      add(ha, 16 + a, 1e-6);
      add(ha, 32 + a / 2, 1e-6);
      add(ha, 40 + a / 2, 5e-6);
      add(hb, 44 + b / 2, 5e-6);
      add(hb, 36 + b / 2, 1e-6);
      add(hb, 24 + b, 1e-6);
      r.bottleneck = gbit_per_sec(100);
    }
    return r;
  }
  std::optional<BytesPerSec> flow_cap(NodeId, NodeId) const override { return std::nullopt; }
  /// A100 40GB: 1555 GB/s HBM / 3 (two reads, one write per element), the catalog's default.
  BytesPerSec reduce_bandwidth(NodeId) const override { return gbyte_per_sec(1555.0 / 3); }

 private:
  int hosts_;
};

}  // namespace topotune::bench
