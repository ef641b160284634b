#pragma once
// Checking instance files as the catalog requires (`topotune instances --check`).
//
// A file passes when the loader reads it (parse_instance_json: schema, types, ranges, the
// consistency rules of validate_instance) and, on the loaded InstanceSpec, the catalog's own
// rules hold. Those are stricter than what a user's file needs, so the loader does not apply
// them (a cluster file's inline instance may omit figures and cite its own measurements):
//   - every figure of the schema is written (known, or {"unknown": true, "note"}), except the
//     optional ones (docs/instance-schema.md), and `description` is not empty;
//   - gpu.bf16_native is known and true exactly on Ampere and later (the planner searches bf16
//     gradients only there);
//   - every known figure's source cites a section of docs/reference/instances.md
//     ("instances.md §N") or a named NVIDIA datasheet, specifications or whitepaper, and every
//     unknown figure's note says why;
//   - sagemaker_name is null or an "ml." name; NVLS only on an NVSwitch fabric; efa_version
//     present exactly when the transport is EFA; no NVLink pair listed twice; a GPU or NIC
//     under a PCIe switch sits on that switch's socket.

#include <string>
#include <vector>

#include "topology/instance_spec.h"

namespace topotune::topo {

/// One thing wrong with an instance file: the figure path ("gpu.count",
/// "host.pcie_switches[0].socket"; empty when the problem is the whole file, such as a JSON
/// syntax error) and what is wrong with it.
struct InstanceProblem {
  std::string field;
  std::string message;
};

/// Every figure path of docs/instance-schema.md ("sagemaker_name", "gpu.count", ...), in the
/// schema's order: the order reports list an instance's figures in.
const std::vector<std::string>& instance_figure_paths();

/// The catalog's rules (above) on an instance the loader accepted: every problem, grouped by
/// rule. Empty when the instance is fit for the catalog.
std::vector<InstanceProblem> check_catalog_rules(const InstanceSpec& inst);

/// Loads `text` as an instance file named `origin` whose "name" must be `expected_name` (the
/// file's stem) and applies check_catalog_rules. The loader stops at its first problem, so a
/// file it refuses has exactly one problem; messages do not repeat `origin`.
std::vector<InstanceProblem> check_instance_text(const std::string& text, const std::string& origin,
                                                 const std::string& expected_name);

/// check_instance_text on the file at `path` (the expected name is its stem); a file that
/// cannot be read is one problem.
std::vector<InstanceProblem> check_instance_file(const std::string& path);

}  // namespace topotune::topo
