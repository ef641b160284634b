// topotune: topology-aware collective simulator and autotuner.
// This file owns the subcommand table and is the only place that turns an Error into a
// message on stderr and an exit code (2 for bad input, 1 for failures at run time).
//
// Exit codes tell the truth: a command's stdout is printed only when it succeeded
// (except the streaming commands, measure and emulate), a failed write to stdout (a full
// disk, a closed pipe, a closed descriptor) is an error with exit status 1, and no exception
// escapes: each is reported as `topotune: error: ...` (exit 2 when the input caused it).

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "cli/commands.h"
#include "cli/decimal_options.h"
#include "core/closest_name.h"
#include "core/memory_budget.h"
#include "core/name_check.h"
#include "core/version.h"

namespace topotune::cli {
namespace {

const std::vector<CommandInfo>& command_table() {
  static const std::vector<CommandInfo> kCommands = {
      // {"name", "one-line summary", setup_name, streams, prints_on_failure},
      // `instances --check` reports its problems on stdout, then fails (exit 2).
      {"instances", "List the built-in instance catalog or check instance files", setup_instances,
       false, true},
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
      {"emulate", "emulated cluster of network namespaces with shaped links (root)", setup_emulate,
       true},
#ifdef TOPOTUNE_HAVE_MPI
      {"measure", "run algorithms on real processes (under mpirun) and time them", setup_measure,
       true},
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

int report(const Error& e) {
  std::fprintf(stderr, "topotune: error: %s\n", terminal_text(e.message).c_str());
  return exit_code_for(e);
}

/// Why the first failed write to stdout failed: stdio discards what it could not write, so a
/// later fflush() succeeds with the error flag set and errno no longer tells (the message
/// said "write error").
int g_stdout_errno = 0;

/// Runs one parsed command; a buffered command's output is printed only if it succeeded.
int run_command(const CommandInfo& info, const CommandRun& run) {
  // Environment settings are input like flags: refused by every command, not only by those
  // that happen to size memory (plan ignored TOPOTUNE_MEMORY_LIMIT_MB=abc, simulate refused it).
  if (auto env = check_memory_limit_variable(); !env) return report(env.error());
  std::ostringstream buffer;
  const Expected<void> result = run(info.streams ? std::cout : buffer);
  if (!info.streams && (result || info.prints_on_failure)) {
    const std::string_view text = buffer.view();
    errno = 0;
    // Errors are reported by finish_stdout; the reason is kept here, where it is known.
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) g_stdout_errno = errno;
  }
  if (!result) {
    // A checker's report comes before the error that ends it.
    errno = 0;
    if (std::fflush(stdout) != 0 && g_stdout_errno == 0) g_stdout_errno = errno;
    return report(result.error());
  }
  return 0;
}

/// Did-you-mean for a mistyped subcommand or long flag, after CLI11's own message.
void suggest(const std::vector<std::pair<CLI::App*, CommandRun>>& runs, int argc, char** argv) {
  if (argc < 2) return;
  const std::string_view first = argv[1];
  const CLI::App* sub = nullptr;
  std::vector<std::string> names;
  for (const auto& r : runs) {
    names.push_back(r.first->get_name());
    if (r.first->get_name() == first) sub = r.first;
  }
  if (sub == nullptr) {
    if (first.starts_with("-")) return;
    if (auto s = closest_name(first, names)) {
      std::fprintf(stderr, "topotune: unknown command '%s': did you mean '%s'?\n",
                   terminal_text(argv[1]).c_str(), s->c_str());
    }
    return;
  }
  std::vector<std::string> flags;
  for (const CLI::Option* o : sub->get_options()) {
    for (const std::string& n : o->get_lnames()) flags.push_back(n);
  }
  for (int i = 2; i < argc; ++i) {
    const std::string_view token = argv[i];
    if (!token.starts_with("--") || token.size() == 2) continue;
    const std::string name(token.substr(2, token.find('=') == std::string_view::npos
                                               ? std::string_view::npos
                                               : token.find('=') - 2));
    if (std::find(flags.begin(), flags.end(), name) != flags.end()) continue;
    if (auto s = closest_name(name, flags)) {
      std::fprintf(stderr, "topotune: unknown flag '--%s': did you mean '--%s'?\n",
                   terminal_text(name).c_str(), s->c_str());
    }
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
    // The same prefix as every other error, so scripts and users find one shape of message.
    std::cerr << "topotune: error: " << terminal_text(e.what())
              << "\nRun with --help for more information.\n";
    suggest(runs, argc, argv);
    return 2;
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].first->parsed()) return run_command(command_table()[i], runs[i].second);
  }
  return 2;
}

/// Everything written to stdout must have reached it: the last chance to see ENOSPC, EPIPE
/// or EBADF is the final flush.
int finish_stdout(int code) {
  errno = 0;
  std::cout.flush();
  const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
  if (!failed) return code;
  const int e = errno != 0 ? errno : g_stdout_errno;
  std::fprintf(stderr, "topotune: error: cannot write to standard output: %s\n",
               e != 0 ? std::strerror(e) : "write error (the reason was not reported)");
  return code != 0 ? code : 1;
}

/// A handler, not SIG_IGN: a write to a closed pipe (SIGPIPE) or past the file size limit
/// (SIGXFSZ) fails with EPIPE or EFBIG, reported like any write error, instead of killing
/// topotune; programs it runs start with the default actions again (exec resets caught
/// signals, while SIG_IGN would be inherited).
void on_write_signal(int) {}

int guarded_main(int argc, char** argv) {
  struct sigaction sa {};
  sa.sa_handler = on_write_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGPIPE, &sa, nullptr);
  ::sigaction(SIGXFSZ, &sa, nullptr);
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    return report(Error(Errc::Internal,
                        "out of memory: the request needs more memory than this "
                        "machine has (std::bad_alloc)"));
  } catch (const std::length_error& e) {
    return report(Error(Errc::InvalidArgument,
                        std::string("the request is too large to represent: ") + e.what()));
  } catch (const nlohmann::json::exception& e) {
    return report(Error(Errc::ParseError, std::string("invalid JSON data: ") + e.what()));
  } catch (const std::exception& e) {
    return report(Error(Errc::Internal, std::string("unexpected failure: ") + e.what()));
  } catch (...) {
    return report(Error(Errc::Internal, "unexpected failure (unknown exception)"));
  }
}

}  // namespace
}  // namespace topotune::cli

int main(int argc, char** argv) {
  const int code = topotune::cli::guarded_main(argc, argv);
  return topotune::cli::finish_stdout(code);
}
