#pragma once
// Running an external program without a shell. The program and its arguments travel as an
// argv vector to posix_spawnp, so no character of an argument (quotes, `;`, newlines, `$(…)`)
// is ever interpreted: there is no command line to inject into. Data for the program goes
// through its stdin, never through the argument list or a script built from untrusted text.
//
// std::system and popen are not used anywhere in topotune (a --plot path with
// `';touch PWNED;'` ran `touch` through `std::system("gnuplot '…'")`).

#include <cstddef>
#include <string>
#include <vector>

#include "core/expected.h"

namespace topotune {

/// Where the child's standard descriptors go.
enum class ProgramStdio {
  Capture,  ///< stdin from ProgramInput::stdin_data, stdout and stderr into ProgramResult
  Inherit,  ///< the caller's own stdin, stdout and stderr (an interactive or streaming child)
};

/// What run_program feeds the child and how much of its output it keeps.
struct ProgramInput {
  ProgramStdio stdio = ProgramStdio::Capture;
  std::string stdin_data;  ///< written to the child's stdin, which is then closed (Capture only)
  /// The child is killed and run_program fails (Errc::Io) if stdout or stderr grows past this.
  std::size_t max_output = std::size_t{256} << 20;
};

/// How the child ended and what it printed.
struct ProgramResult {
  int exit_status = -1;  ///< exit code; 128 + signal number when killed by a signal
  std::string out;       ///< everything the child wrote to stdout (empty with Inherit)
  std::string err;       ///< everything the child wrote to stderr (empty with Inherit)
  bool ok() const { return exit_status == 0; }
};

/// Runs `argv[0]` (looked up in PATH when it has no '/') with `argv` as its arguments and the
/// caller's environment, feeds it `input.stdin_data` (or lets it use the caller's standard
/// descriptors with ProgramStdio::Inherit), and waits for it.
/// Fails with Errc::NotFound when the program cannot be started (not installed, not
/// executable) and Errc::Io when its output exceeds the limit; a program that runs and exits
/// non-zero is not an error here: check ProgramResult::exit_status.
/// Never raises SIGPIPE in the caller (stdin is a socket written with MSG_NOSIGNAL), and every
/// descriptor it opens is close-on-exec, so the child inherits only its three standard ones.
/// Fails with Errc::InvalidArgument for stdin_data together with ProgramStdio::Inherit.
Expected<ProgramResult> run_program(const std::vector<std::string>& argv,
                                    const ProgramInput& input = {});

}  // namespace topotune
