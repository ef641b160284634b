#pragma once
// Building, finding and removing the emulated network (root only), and running a program in
// it. The plumbing commands (network_commands.h) go through a CommandRunner, so that tests can
// check what would run, and what happens when a step fails, without root.

#include <functional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "emulation/emulation_spec.h"
#include "emulation/network_commands.h"

namespace topotune::emu {

/// How a plumbing command ended: its exit status and its stdout and stderr together.
struct CommandResult {
  int status = -1;
  std::string output;
};

/// Runs one plumbing command. A program that cannot be started reads as exit status 127 with
/// the reason as its output, as a shell would report it; an Error is for anything worse.
using CommandRunner = std::function<Expected<CommandResult>(const Argv&)>;

/// The real runner: core/process's run_program (argv, no shell, output captured).
CommandRunner system_runner();

/// Fails with Errc::Unsupported ("emulated clusters need root") unless the effective user is
/// root.
Expected<void> check_root();
/// Fails with Errc::Unsupported and a clear reason when not root or network namespaces are
/// unavailable (it creates and deletes the namespace <prefix>probe to find out).
Expected<void> check_privileges(const std::string& prefix,
                                const CommandRunner& run = system_runner());

/// Runs up_commands(spec) in order; on a failure removes what was made (emulated_down) and
/// returns the failing command's output. Refuses when namespaces of the prefix exist already.
Expected<void> emulated_up(const EmulationSpec& spec, const CommandRunner& run = system_runner());
/// Removes every namespace of `prefix` (ending processes left inside first). Idempotent.
/// Returns the names removed.
Expected<std::vector<std::string>> emulated_down(const std::string& prefix,
                                                 const CommandRunner& run = system_runner());
/// Names of existing namespaces of `prefix`, sorted.
std::vector<std::string> emulated_namespaces(const std::string& prefix,
                                             const CommandRunner& run = system_runner());

/// Runs `command` under the cluster's mpirun wrapper (launch_files.h) on the caller's stdin,
/// stdout and stderr; returns mpirun's exit status. The cluster must be up.
Expected<int> run_in_emulation(const EmulationSpec& spec, const std::vector<std::string>& command);

}  // namespace topotune::emu
