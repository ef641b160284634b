// Default link-class parameters. ASSUMPTIONS, not hardware facts (see docs/model.md): they
// are starting points for calibration, chosen to be plausible, not measured here.

#include "topology/model_defaults.h"

namespace topotune::topo {

std::array<LinkClassParams, kNumLinkKinds> default_link_params(Placement placement) {
  std::array<LinkClassParams, kNumLinkKinds> p{};
  auto set = [&p](LinkKind k, double latency_us, double efficiency) {
    p[static_cast<int>(k)] = LinkClassParams{microseconds(latency_us), efficiency};
  };
  // Efficiencies follow the measured fractions of nominal quoted in instances.md section 1
  // (A100 node all_reduce ~80% of NVLink; H200 PCIe H2D 88%) and p4d's "effective 340 Gbps"
  // of 400 (85%). Latencies per hop are round assumptions: NVLink and PCIe hops well under a
  // microsecond, a network hop a few microseconds (EFA osu_latency ~10 us end to end).
  set(LinkKind::NvLink, 0.5, 0.80);
  set(LinkKind::Pcie, 0.5, 0.85);
  set(LinkKind::CpuInterconnect, 0.3, 0.70);
  if (placement == Placement::Cluster) {
    set(LinkKind::Network, 2.5, 0.85);
    set(LinkKind::Uplink, 2.5, 0.85);
  } else {
    // Racks apart: assume longer cables and deeper switch buffers, so more latency per hop.
    set(LinkKind::Network, 3.0, 0.85);
    set(LinkKind::Uplink, 5.0, 0.85);
  }
  return p;
}

}  // namespace topotune::topo
