#pragma once
// The CLI is a table of subcommands (ninja's kTools style): each one lives in its own file,
// declares its options on a CLI11 sub-app, and returns the function that runs it after parsing.
// A command calls the libraries and hands its result to a reporter; it never calls exit().

#include <functional>
#include <iosfwd>

#include "core/expected.h"

namespace CLI {
class App;
}

namespace topotune::cli {

/// Runs a parsed subcommand. Output goes to `out`; an error is returned, not printed.
using CommandRun = std::function<Expected<void>(std::ostream& out)>;

/// Declares a subcommand's options and examples on `sub` and returns the function to run it.
using CommandSetup = CommandRun (*)(CLI::App& sub);

/// One row of the subcommand table in main.cc.
struct CommandInfo {
  const char* name;
  const char* summary;
  CommandSetup setup;
  /// false: the output is kept until the command succeeds, then printed (a failed command
  /// prints nothing on stdout); true: printed as it comes (long runs that report progress).
  bool streams = false;
  /// A buffered command whose output is printed even when it fails: a checker, whose report
  /// is the output of a run that fails (exit 2) because it found problems.
  bool prints_on_failure = false;
};

}  // namespace topotune::cli
