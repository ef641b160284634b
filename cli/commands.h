#pragma once
// Every subcommand's setup function; main.cc lists them in its table.

#include "cli/command.h"

namespace topotune::cli {

// Each subcommand adds its declaration here and its row in main.cc's kCommands.

}  // namespace topotune::cli
