#pragma once
// The files `topotune emulate up` leaves in its directory: hostfile, MPI launch agent, mpirun
// wrapper with every MCA setting the testbed needs, the cluster JSON for predict/simulate/plan
// (cluster_model.h), and its own state (emulation_spec.h).

#include <string>
#include <vector>

#include "core/expected.h"
#include "core/output_directory.h"
#include "emulation/emulation_spec.h"

namespace topotune::emu {

/// Open MPI's hostfile: one line "<host namespace> slots=<ranks per node>" per host.
std::string hostfile_text(const EmulationSpec& spec);
/// agent.sh: Open MPI's plm_rsh_agent instead of ssh (runs orted inside the host namespace,
/// with its own UTS namespace so every emulated host has its own hostname).
std::string agent_script();
/// mpirun.sh: mpirun inside the launcher namespace with -np nodes x ranks and the settings
/// of docs/emulation.md (no binding, the rsh agent, TCP on the emulated subnet only, the TCP
/// BTL's head-of-line fix).
std::string mpirun_script(const EmulationSpec& spec);

/// The command line that runs `command` under spec.dir's mpirun.sh.
std::vector<std::string> mpirun_command(const EmulationSpec& spec,
                                        const std::vector<std::string>& command);

/// Before anything is created: spec.dir is made if missing (its last component only,
/// core/output_directory.h; removed again if the command fails) and it and the five files'
/// paths are checked like every output target (core/file_output.h). An empty dir is refused.
Expected<OutputDirectory> prepare_emulation_dir(const EmulationSpec& spec);

/// Writes hostfile, agent.sh, mpirun.sh (both executable), cluster.json and emulate.json into
/// spec.dir (prepared by prepare_emulation_dir), all or none (core/file_output.h). The cluster
/// JSON is built into a topology first: a document predict could not load is an internal
/// error.
Expected<void> write_emulation_files(const EmulationSpec& spec);

/// Reads spec.dir/emulate.json back (for `run` and `down`); Errc::NotFound when it is missing.
Expected<EmulationSpec> read_emulation_state(const std::string& dir);

}  // namespace topotune::emu
