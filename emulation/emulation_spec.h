#pragma once
// topotune_emulation: an emulated cluster on one Linux machine (root only). One network
// namespace per host, veth pairs into a bridge per rack inside a "switch" namespace, racks
// joined to a spine bridge by shaped uplinks, and a launcher namespace that runs mpirun.
// Recipe, numbers and pitfalls: docs/reference/testbed.md; summary in docs/emulation.md.
//
// The module is split by what can be tested without root:
//  - EmulationSpec (this header): what `topotune emulate up` builds, and its state file;
//  - link_model.h: the physical model of a shaped link (payload rate, tbf parameters);
//  - cluster_model.h: the emulated network as a topotune.cluster/1 document and ClusterSpec;
//  - network_commands.h: the exact `ip`/`tc` command lines that build it;
//  - emulated_network.h: running them (and tearing down) through a CommandRunner;
//  - launch_files.h: hostfile, launch agent and mpirun wrapper.
//
// Names start with a prefix ("tt" by default) so that `down` can find them from any state,
// also after a crash. Addresses come from 198.18.0.0/24 only (RFC 2544 benchmarking range).

#include <optional>
#include <string>

#include "core/expected.h"
#include "core/units.h"

namespace topotune::emu {

/// What `topotune emulate up` builds. Rates are what tbf enforces on the wire, per direction.
struct EmulationSpec {
  int nodes = 2;
  int ranks_per_node = 1;
  BytesPerSec nic_rate = gbit_per_sec(1);    ///< tbf rate of each host NIC (both directions)
  int racks = 1;                             ///< hosts are split into `racks` consecutive groups
  std::optional<BytesPerSec> uplink_rate;    ///< tbf rate of each rack uplink; none = unshaped
  std::string prefix = "tt";                 ///< namespace / device name prefix (<= 4 characters)
  std::string dir;                           ///< where the hostfile, agent, wrapper and JSON go
  std::string congestion_control = "cubic";  ///< per-route TCP congestion control; "" = host's

  std::string host_ns(int i) const { return prefix + "h" + std::to_string(i); }
  std::string switch_ns() const { return prefix + "sw"; }
  std::string launcher_ns() const { return prefix + "l"; }
  int hosts_per_rack() const { return (nodes + racks - 1) / racks; }
};

/// A rate in bits per second, the unit tc and the state file speak.
constexpr double bits_per_sec(BytesPerSec r) { return r.value * 8.0; }

/// The shaped rates `emulate up` accepts (--nic, --uplink), bits per second: from 2 Mbit/s
/// (the payload rate the cluster file records, 0.936 x the shaped rate, stays above its
/// 1e-3 Gbps minimum) to 1 Tbit/s (beyond what a veth pair carries).
inline constexpr double kMinShapedBitsPerSec = 2e6;
inline constexpr double kMaxShapedBitsPerSec = 1e12;

/// Checks the request (ranges, equal racks, prefix) before anything is created: --nodes
/// 1..64, --ranks-per-node 1..kMaxGpusPerHost (the cluster file's GPUs per host), rates in
/// [kMinShapedBitsPerSec, kMaxShapedBitsPerSec].
Expected<void> check_spec(const EmulationSpec& spec);

/// The state file `emulate up` leaves in spec.dir (schema topotune.emulation/1), so that
/// `run` and `down` find the cluster again. `dir` is not part of it.
std::string emulation_state_json(const EmulationSpec& spec);
/// Parses a state file's text; `origin` names it in messages; `dir` becomes spec.dir.
/// Duplicate keys, a wrong schema or missing fields are Errc::ParseError.
Expected<EmulationSpec> parse_emulation_state(const std::string& text, const std::string& origin,
                                              const std::string& dir);

}  // namespace topotune::emu
