#pragma once
// Private to topology/: the instance reader on an already-parsed JSON value, shared by the
// instance loader and the cluster-file loader (whose "instance" may be a whole object).

#include "topology/instance_spec.h"
#include "topology/json_reader.h"

namespace topotune::topo::detail {

/// Reads and validates an instance object found at `at` (the path prefixes error messages).
Expected<InstanceSpec> read_instance(const Json& v, const JsonPath& at,
                                     const std::string& expected_name);

/// Applies one figure override ("network.nic_Gbps": 200) to a loaded instance; the figure
/// leaves `unknowns` and its source becomes `source`. Unknown paths are rejected.
Expected<void> apply_override(InstanceSpec& inst, const std::string& figure, const Json& value,
                              const JsonPath& at, const std::string& source);

}  // namespace topotune::topo::detail
