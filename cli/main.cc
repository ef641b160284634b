// topotune: topology-aware collective simulator and autotuner.
// This file owns the subcommand table and is the only place that turns an Error into a
// message on stderr and an exit code (2 for bad input, 1 for failures at run time).

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <vector>

#include "cli/commands.h"
#include "cli/decimal_options.h"
#include "core/version.h"

namespace topotune::cli {
namespace {

const std::vector<CommandInfo>& command_table() {
  static const std::vector<CommandInfo> kCommands = {
      // {"name", "one-line summary", setup_name},
      {"instances", "List the built-in instance catalog", setup_instances},
      {"topo", "Show the topology graph of an instance type x node count", setup_topo},
      {"plan", "pick the allreduce algorithm, DDP bucket size and gradient dtype for a model",
       setup_plan},
      {"schedule", "generate one algorithm's schedule: JSON or a summary with its closed-form time",
       setup_schedule},
      {"simulate", "simulate one algorithm on a cluster with contention: time, busbw, bottlenecks",
       setup_simulate},
      {"predict", "predict NCCL's algorithm, protocol and time per size", setup_predict},
      {"validate", "compare predictions with an nccl-tests log or measurement", setup_validate},
      {"calibrate", "fit the NCCL model's physical parameters to measured runs", setup_calibrate},
      {"emulate", "emulated cluster of network namespaces with shaped links (root)", setup_emulate},
#ifdef TOPOTUNE_HAVE_MPI
      {"measure", "run algorithms on real processes (under mpirun) and time them", setup_measure},
#endif
  };
  return kCommands;
}

int exit_code_for(const Error& e) {
  switch (e.code) {
    case Errc::Transport:
    case Errc::Timeout:
    case Errc::Internal:
      return 1;
    default:
      return 2;
  }
}

int run(int argc, char** argv) {
  CLI::App app{
      "topotune: predict, tune and measure collective communication on GPU clusters.\n"
      "Start with:  topotune plan --instance p4d.24xlarge --nodes 4",
      "topotune"};
  app.set_version_flag("--version", std::string("topotune ") + kVersion);
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, CommandRun>> runs;
  for (const CommandInfo& c : command_table()) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    runs.emplace_back(sub, c.setup(*sub));
  }
  require_decimal_integers(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  for (auto& [sub, run_command] : runs) {
    if (!sub->parsed()) continue;
    Expected<void> result = run_command(std::cout);
    std::cout.flush();
    if (!result) {
      std::fprintf(stderr, "topotune: error: %s\n", result.error().message.c_str());
      return exit_code_for(result.error());
    }
    return 0;
  }
  return 2;
}

}  // namespace
}  // namespace topotune::cli

int main(int argc, char** argv) { return topotune::cli::run(argc, argv); }
