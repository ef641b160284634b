#include "emulation/emulated_network.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <thread>

#include "core/process.h"
#include "emulation/launch_files.h"

namespace topotune::emu {
namespace {

std::string join(const Argv& v) {
  std::string s;
  for (const auto& a : v) s += (s.empty() ? "" : " ") + a;
  return s;
}

/// Runs one plumbing command; its output becomes the error message on failure.
Expected<void> sh(const CommandRunner& run, const Argv& argv) {
  TT_TRY(CommandResult r, run(argv));
  if (r.status != 0) {
    while (!r.output.empty() && r.output.back() == '\n') r.output.pop_back();
    return fail(Errc::Transport, "`" + join(argv) + "` failed: " + r.output);
  }
  return {};
}

std::vector<pid_t> pids_in(const CommandRunner& run, const std::string& ns) {
  std::vector<pid_t> pids;
  auto r = run({"ip", "netns", "pids", ns});
  if (!r || r->status != 0) return pids;
  std::istringstream in(r->output);
  long p;
  while (in >> p) pids.push_back(static_cast<pid_t>(p));
  return pids;
}

}  // namespace

CommandRunner system_runner() {
  return [](const Argv& argv) -> Expected<CommandResult> {
    Expected<ProgramResult> r = run_program(argv);
    if (!r) {
      if (r.error().code != Errc::NotFound) return Unexpected(std::move(r).error());
      return CommandResult{127, r.error().message};
    }
    return CommandResult{r->exit_status, r->out + r->err};
  };
}

Expected<void> check_root() {
  if (::geteuid() != 0) return fail(Errc::Unsupported, "emulated clusters need root");
  return {};
}

Expected<void> check_privileges(const std::string& prefix, const CommandRunner& run) {
  if (::geteuid() != 0) {
    return fail(Errc::Unsupported, "emulated clusters need root (network namespaces and tc)");
  }
  const std::string probe = prefix + "probe";
  TT_TRY(CommandResult r, run({"ip", "netns", "add", probe}));
  if (r.status != 0) {
    return fail(Errc::Unsupported, "network namespaces are not available here: " + r.output);
  }
  (void)run({"ip", "netns", "del", probe});
  return {};
}

std::vector<std::string> emulated_namespaces(const std::string& prefix, const CommandRunner& run) {
  std::vector<std::string> names;
  auto r = run({"ip", "netns", "list"});
  if (!r || r->status != 0) return names;
  std::istringstream in(r->output);
  std::string line;
  while (std::getline(in, line)) {
    const std::string name = line.substr(0, line.find(' '));
    if (is_emulation_namespace(prefix, name)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

Expected<std::vector<std::string>> emulated_down(const std::string& prefix,
                                                 const CommandRunner& run) {
  const std::vector<std::string> names = emulated_namespaces(prefix, run);
  // Processes left inside (a crashed run) keep a namespace's devices alive: end them first.
  for (int sig : {SIGTERM, SIGKILL}) {
    bool any = false;
    for (const auto& ns : names) {
      for (pid_t p : pids_in(run, ns)) {
        any = true;
        ::kill(p, sig);
      }
    }
    if (any && sig == SIGTERM) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  for (const auto& ns : names) TT_TRY_VOID(sh(run, {"ip", "netns", "del", ns}));
  return names;
}

Expected<void> emulated_up(const EmulationSpec& s, const CommandRunner& run) {
  TT_TRY_VOID(check_spec(s));
  if (!emulated_namespaces(s.prefix, run).empty()) {
    return fail(Errc::InvalidArgument, "an emulated cluster with prefix '" + s.prefix +
                                           "' exists already: run `topotune emulate down` first");
  }
  for (const Argv& argv : up_commands(s)) {
    if (Expected<void> made = sh(run, argv); !made) {
      (void)emulated_down(s.prefix, run);
      return made;
    }
  }
  return {};
}

Expected<int> run_in_emulation(const EmulationSpec& s, const std::vector<std::string>& command) {
  ProgramInput in;
  in.stdio = ProgramStdio::Inherit;
  TT_TRY(ProgramResult r, run_program(mpirun_command(s, command), in));
  return r.exit_status;
}

}  // namespace topotune::emu
