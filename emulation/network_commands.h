#pragma once
// The emulated network as the exact `ip` and `tc` command lines that build it, in order, so
// that what `emulate up` would do as root can be read and tested without root.
//
// Every device is created inside a namespace that these commands create (veths directly in
// their namespaces: nothing ever exists in the root namespace), so deleting the namespaces
// removes everything: bridges, veths and qdiscs.

#include <string>
#include <vector>

#include "emulation/emulation_spec.h"

namespace topotune::emu {

/// One program and its arguments (argv[0] first); run without a shell.
using Argv = std::vector<std::string>;

/// The addresses of the emulated network (RFC 2544's benchmarking range): hosts .1..N, the
/// launcher .254.
inline constexpr const char* kSubnet = "198.18.0.0/24";

/// The commands that build the cluster of `spec` (which check_spec accepts), in order: the
/// switch namespace with a bridge per rack (and a spine with shaped uplinks for two or more
/// racks), the launcher, then each host with its NIC shaped in both directions and its route's
/// congestion control.
std::vector<Argv> up_commands(const EmulationSpec& spec);

/// The tbf command that shapes device `dev` of namespace `ns` to `rate`.
Argv shape_command(const std::string& ns, const std::string& dev, BytesPerSec rate);

/// Whether `name` is a namespace these commands create for `prefix`: <p>sw, <p>l, <p>probe
/// (check_privileges' probe) and <p>h<digits>, and nothing else.
bool is_emulation_namespace(const std::string& prefix, const std::string& name);

}  // namespace topotune::emu
