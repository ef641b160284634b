// `topotune emulate up|down|run|status`: an emulated cluster of network namespaces with shaped
// links on this machine, for real MPI runs (docs/emulation.md). Root only; without root or
// network namespaces every subcommand fails with a clear message (exit 2).

#include <CLI/CLI.hpp>
#include <ostream>

#include "cli/commands.h"
#include "cli/path_flag.h"
#include "core/output_directory.h"
#include "core/quantity_parse.h"
#include "emulation/emulated_network.h"
#include "emulation/launch_files.h"

namespace topotune::cli {
namespace {

struct EmulateArgs {
  int nodes = 2;
  int ranks_per_node = 1;
  std::string nic = "1gbit";
  int racks = 1;
  std::string uplink;
  std::string dir = "/tmp/topotune-emulated";
  std::string prefix = "tt";
  std::string congestion_control = "cubic";
  std::vector<std::string> command;
  bool files_only = false;
};

Expected<emu::EmulationSpec> spec_of(const EmulateArgs& a) {
  emu::EmulationSpec s;
  s.nodes = a.nodes;
  s.ranks_per_node = a.ranks_per_node;
  TT_TRY(s.nic_rate, parse_rate(a.nic));
  s.racks = a.racks;
  if (!a.uplink.empty()) {
    TT_TRY(BytesPerSec up, parse_rate(a.uplink));
    if (up.value > 0) s.uplink_rate = up;  // --uplink 0: unshaped, as when absent
  }
  s.prefix = a.prefix;
  s.dir = a.dir;
  s.congestion_control = a.congestion_control;
  TT_TRY_VOID(emu::check_spec(s));
  return s;
}

Expected<void> run_up(const EmulateArgs& a, std::ostream& out) {
  TT_TRY(const emu::EmulationSpec s, spec_of(a));
  if (a.files_only) {
    TT_TRY(OutputDirectory dir, emu::prepare_emulation_dir(s));
    TT_TRY_VOID(emu::write_emulation_files(s));
    dir.keep();
    out << "emulate up --files-only: wrote " << s.dir << "/cluster.json (no namespaces created)\n";
    return {};
  }
  TT_TRY_VOID(emu::check_privileges(s.prefix));
  TT_TRY(OutputDirectory dir, emu::prepare_emulation_dir(s));  // before any namespace
  TT_TRY_VOID(emu::emulated_up(s).context("emulate up"));
  if (Expected<void> w = emu::write_emulation_files(s); !w) {
    (void)emu::emulated_down(s.prefix);
    return w;
  }
  dir.keep();
  out << "emulated cluster up: " << s.nodes << " hosts x " << s.ranks_per_node << " ranks, NIC "
      << emu::bits_per_sec(s.nic_rate) / 1e6 << " Mbit/s";
  if (s.racks > 1) {
    out << ", " << s.racks << " racks, uplink "
        << (s.uplink_rate ? std::to_string(emu::bits_per_sec(*s.uplink_rate) / 1e6) + " Mbit/s"
                          : std::string("unshaped"));
  }
  out << "\n  files in " << s.dir << ": hostfile agent.sh mpirun.sh cluster.json emulate.json\n"
      << "  run:  topotune emulate run --dir " << s.dir << " -- topotune measure --cluster "
      << s.dir << "/cluster.json ...\n";
  return {};
}

Expected<void> run_down(const EmulateArgs& a, std::ostream& out) {
  std::string prefix = a.prefix;
  if (auto st = emu::read_emulation_state(a.dir)) prefix = st->prefix;
  TT_TRY_VOID(emu::check_root());
  TT_TRY(std::vector<std::string> removed, emu::emulated_down(prefix).context("emulate down"));
  out << "emulate down: removed " << removed.size() << " namespaces";
  for (const auto& n : removed) out << " " << n;
  out << "\n";
  return {};
}

Expected<void> run_run(const EmulateArgs& a, std::ostream& out) {
  TT_TRY(const emu::EmulationSpec s, emu::read_emulation_state(a.dir));
  if (emu::emulated_namespaces(s.prefix).empty()) {
    return fail(Errc::NotFound, "the emulated cluster of '" + a.dir + "' is down (run emulate up)");
  }
  if (a.command.empty()) return fail(Errc::InvalidArgument, "nothing to run: emulate run -- CMD");
  out.flush();
  TT_TRY(const int status, emu::run_in_emulation(s, a.command));
  if (status != 0) {
    return fail(Errc::Transport,
                "the emulated run failed (mpirun exit status " + std::to_string(status) + ")");
  }
  return {};
}

Expected<void> run_status(const EmulateArgs& a, std::ostream& out) {
  const std::vector<std::string> names = emu::emulated_namespaces(a.prefix);
  out << (names.empty() ? "no emulated cluster" : "namespaces:");
  for (const auto& n : names) out << " " << n;
  out << "\n";
  return {};
}

}  // namespace

CommandRun setup_emulate(CLI::App& sub) {
  auto a = std::make_shared<EmulateArgs>();
  sub.require_subcommand(1);
  CLI::App* up = sub.add_subcommand("up", "create the namespaces, links and files");
  up->add_option("--nodes", a->nodes, "Emulated hosts (one network namespace each)")
      ->capture_default_str();
  up->add_option("--ranks-per-node", a->ranks_per_node, "MPI ranks per host")
      ->capture_default_str();
  up->add_option("--nic", a->nic, "NIC rate per direction, e.g. 200mbit, 1gbit")
      ->capture_default_str();
  up->add_option("--racks", a->racks, "Racks (bridges) the hosts are split into")
      ->capture_default_str();
  up->add_option("--uplink", a->uplink, "Rack uplink rate (default: unshaped)");
  up->add_option("--congestion-control", a->congestion_control, "TCP congestion control per route")
      ->capture_default_str();
  up->add_flag("--files-only", a->files_only,
               "Only write the files (cluster JSON for predictions); needs no root");
  CLI::App* down = sub.add_subcommand("down", "remove everything (idempotent, also after a crash)");
  CLI::App* run =
      sub.add_subcommand("run", "run an MPI program in the emulated cluster: run -- CMD");
  run->add_option("command", a->command, "The program and its arguments (after --)")->required();
  CLI::App* status = sub.add_subcommand("status", "list the emulated cluster's namespaces");
  for (CLI::App* c : {up, down, run, status}) {
    c->add_option("--dir", a->dir, "Directory of the cluster's files")
        ->capture_default_str()
        ->check(non_empty_path());
    c->add_option("--prefix", a->prefix, "Name prefix of namespaces (1-4 letters)")
        ->capture_default_str();
  }
  return [a, up, down, run, status](std::ostream& out) -> Expected<void> {
    if (up->parsed()) return run_up(*a, out);
    if (down->parsed()) return run_down(*a, out);
    if (run->parsed()) return run_run(*a, out);
    if (status->parsed()) return run_status(*a, out);
    return fail(Errc::InvalidArgument, "emulate: expected up, down, run or status");
  };
}

}  // namespace topotune::cli
