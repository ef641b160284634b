#pragma once
// The emulated cluster as topotune sees it: a topotune.cluster/1 document (docs/cluster.md)
// whose instance is "ranks on loopback behind one shaped NIC", so that predict, simulate and
// plan can be compared with what MPI measures on it.

#include <string>

#include "core/expected.h"
#include "emulation/emulation_spec.h"
#include "topology/cluster_spec.h"

namespace topotune::emu {

/// Loopback inside a host stands in for NVLink: Open MPI's shared-memory (vader) copy rate on
/// this class of machine is several GB/s, far above the shaped NICs, so its exact value does
/// not matter for the bandwidth-bound sizes the emulation is used for (GB/s).
inline constexpr double kLoopbackGBps = 4.0;

/// The cluster JSON (schema topotune.cluster/1) `emulate up` writes as cluster.json. The NIC
/// rate is effective_payload_rate of the shaped rate, so the link efficiencies are 1.
std::string emulated_cluster_json(const EmulationSpec& spec);

/// The same cluster, parsed: what a `--cluster cluster.json` run will model.
Expected<topo::ClusterSpec> emulated_cluster(const EmulationSpec& spec);

}  // namespace topotune::emu
