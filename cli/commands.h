#pragma once
// Every subcommand's setup function; main.cc lists them in its table.

#include "cli/command.h"

namespace topotune::cli {

// Each subcommand adds its declaration here and its row in main.cc's kCommands.

/// topotune schedule: generate and print one algorithm's schedule (schedule_command.cc).
CommandRun setup_schedule(CLI::App& sub);
CommandRun setup_predict(CLI::App& sub);    ///< NCCL's choice and time per size
CommandRun setup_validate(CLI::App& sub);   ///< predicted vs measured (nccl-tests logs)
CommandRun setup_calibrate(CLI::App& sub);  ///< fit the NCCL model to measured runs

}  // namespace topotune::cli
