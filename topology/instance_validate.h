#pragma once
// Consistency rules of an InstanceSpec, shared by the JSON loader (which reports them with the
// file name) and the builder (which receives in-memory specs, e.g. from tests or --cluster).

#include "core/expected.h"
#include "topology/instance_spec.h"

namespace topotune::topo {

/// Checks counts (>= 1, within the per-host limits of model_defaults.h), bandwidths (> 0),
/// every index in pcie_switches / gpu_socket / nic_socket / nvlink_pairs in range, each GPU and
/// NIC under at most one PCIe switch, sockets < cpu_sockets, socket lists of the right length,
/// NVLink pairs only on nvlink_mesh and within nvlinks_per_gpu. The error names the field.
Expected<void> validate_instance(const InstanceSpec& inst);

/// Fills what an in-memory spec may leave empty: gpu_socket / nic_socket (spread evenly over
/// the sockets) when the lists are empty. Loader-produced specs are already complete.
InstanceSpec complete_instance(InstanceSpec inst);

}  // namespace topotune::topo
