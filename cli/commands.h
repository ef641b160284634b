#pragma once
// Every subcommand's setup function; main.cc lists them in its table.

#include "cli/command.h"

namespace topotune::cli {

// Each subcommand adds its declaration here and its row in main.cc's kCommands.

/// `topotune instances`: the built-in instance catalog (cli/instances_command.cc).
CommandRun setup_instances(CLI::App& sub);
/// `topotune topo`: one cluster's topology as a table, JSON or DOT (cli/topo_command.cc).
CommandRun setup_topo(CLI::App& sub);
/// topotune schedule: generate and print one algorithm's schedule (schedule_command.cc).
CommandRun setup_schedule(CLI::App& sub);
CommandRun setup_predict(CLI::App& sub);    ///< NCCL's choice and time per size
CommandRun setup_validate(CLI::App& sub);   ///< predicted vs measured (nccl-tests logs)
CommandRun setup_calibrate(CLI::App& sub);  ///< fit the NCCL model to measured runs

/// topotune simulate: simulate one algorithm on a cluster with contention (simulate_command.cc).
CommandRun setup_simulate(CLI::App& sub);

/// `topotune emulate up|down|run|status`.
CommandRun setup_emulate(CLI::App& sub);

/// `topotune measure` (only when built with MPI: TOPOTUNE_HAVE_MPI).
CommandRun setup_measure(CLI::App& sub);

/// topotune plan: algorithm x bucket size x gradient dtype for a model on a cluster.
CommandRun setup_plan(CLI::App& sub);

}  // namespace topotune::cli
