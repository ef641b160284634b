#pragma once
// An emulated cluster on one Linux machine (root only): one network namespace per host, veth
// pairs into a bridge per rack inside a "switch" namespace, racks joined to a spine bridge by
// shaped uplinks, and a launcher namespace that runs mpirun. Recipe, numbers and pitfalls:
// docs/reference/testbed.md; summary in docs/emulation.md.
//
// Every device lives inside a namespace that this code creates (veths are created directly in
// their namespaces), so deleting the namespaces removes everything: bridges, veths and qdiscs.
// Names start with a prefix ("tt" by default) so that `down` can find them from any state,
// also after a crash. Addresses come from 198.18.0.0/24 only (RFC 2544 benchmarking range).

#include <string>
#include <vector>

#include "core/expected.h"
#include "core/units.h"

namespace topotune::cli {

/// What `topotune emulate up` builds.
struct EmulatedClusterSpec {
  int nodes = 2;
  int ranks_per_node = 1;
  double nic_bits_per_sec = 1e9;   ///< tbf rate of each host NIC (both directions)
  int racks = 1;                   ///< hosts are split into `racks` consecutive groups
  double uplink_bits_per_sec = 0;  ///< tbf rate of each rack uplink; 0 = unshaped
  std::string prefix = "tt";       ///< namespace / device name prefix (<= 4 characters)
  std::string dir;                 ///< where the hostfile, agent, wrapper and JSON go
  std::string congestion_control = "cubic";

  std::string host_ns(int i) const { return prefix + "h" + std::to_string(i); }
  std::string switch_ns() const { return prefix + "sw"; }
  std::string launcher_ns() const { return prefix + "l"; }
  int hosts_per_rack() const { return (nodes + racks - 1) / racks; }
};

/// TCP payload share of a shaped Ethernet frame: 1448 bytes of payload (MSS with timestamps)
/// per 1514-byte frame that tbf counts.
inline constexpr double kTcpPayloadShare = 1448.0 / 1514.0;
/// Pure ACKs of one-way connections share the receiver's NIC egress: 66 B per 2 x 1514 B.
inline constexpr double kAckOverhead = 1.0 + 66.0 / (2.0 * 1514.0);
/// The bandwidth a shaped link delivers to MPI payload, per direction (testbed.md §A.7, §A.5).
BytesPerSec effective_payload_rate(double bits_per_sec);

/// Checks the request (ranges, prefix length) before anything is created.
Expected<void> check_spec(const EmulatedClusterSpec& spec);
/// Fails with Errc::Unsupported and a clear reason when not root or netns is unavailable.
Expected<void> check_privileges(const std::string& prefix);

/// Creates the namespaces, bridges, veths, qdiscs and routes; on failure removes what it made.
Expected<void> emulated_up(const EmulatedClusterSpec& spec);
/// Removes every namespace with `prefix` (killing processes left inside). Idempotent.
/// Returns the names removed.
Expected<std::vector<std::string>> emulated_down(const std::string& prefix);
/// Names of existing namespaces with `prefix`.
std::vector<std::string> emulated_namespaces(const std::string& prefix);

/// Writes hostfile, agent.sh, mpirun.sh, cluster.json and emulate.json into spec.dir.
Expected<void> write_emulation_files(const EmulatedClusterSpec& spec);
/// The cluster JSON (schema topotune.cluster/1) describing the emulated topology.
std::string emulated_cluster_json(const EmulatedClusterSpec& spec);
/// Reads emulate.json back (for `run` and `down`).
Expected<EmulatedClusterSpec> read_emulation_state(const std::string& dir);

/// Runs argv (no shell); returns its exit status, or an error if it could not start.
/// `quiet` discards its stdout/stderr; otherwise they are inherited.
Expected<int> run_process(const std::vector<std::string>& argv, bool quiet = false);

}  // namespace topotune::cli
