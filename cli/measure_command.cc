// `topotune measure`: runs allreduce, allgather or reduce-scatter algorithms on real processes
// (launched with mpirun) and reports nccl-tests-style numbers; see docs/runtime.md.
//
// Every rank runs this command. The loop, its watchdog and its failure policy are the
// runtime's (runtime/measure_loop.h); this file chooses the harness (host memory over MPI, or
// device memory over NCCL), makes the candidates (cli/measure_candidates.h) and reports:
//  * a rank whose run fails prints "topotune: error: rank R: ..." and calls MPI_Abort, which
//    tears the job down (returning would reach MPI_Finalize, which waits for the others);
//  * a rank whose watchdog sees no progress for --timeout seconds prints the same kind of
//    line and exits 1 without MPI_Finalize, so mpirun ends the job;
//  * rank 0 writes --out only after the last point and a final barrier, atomically.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <ostream>
#include <set>

#include "cli/commands.h"
#include "cli/decimal_options.h"
#include "cli/measure_candidates.h"
#include "cli/measure_report.h"
#include "cli/output_format.h"
#include "cli/path_flag.h"
#include "core/file_output.h"
#include "core/quantity_parse.h"
#include "runtime/measure_loop.h"
#include "runtime/mpi_transport.h"
#include "runtime/process_cpu.h"
#include "topology/cluster_spec.h"

namespace topotune::cli {
namespace {

struct MeasureArgs {
  std::string algos = "ring,mpi";
  std::string sizes = "1M:64M";
  int warmup = 2;
  int iters = 5;
  std::string dtype = "fp32";
  double timeout_s = 120;
  std::string out;
  OutputFormat format = OutputFormat::Table;
  int ranks_per_node = 0;
  std::string cluster;
  int channels = 1;
  int chunks = 1;
  std::string backend = "mpi";
  std::string collective = "allreduce";
};

[[noreturn]] void abort_job(int rank, const Error& e) {
  std::fprintf(stderr, "topotune: error: rank %d: %s\n", rank, e.message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

// The watchdog's action. Never calls MPI (MPI_THREAD_FUNNELED, and a peer is gone): exiting
// without MPI_Finalize makes mpirun abort the rest of the job.
rt::Watchdog::OnStall exit_on_stall(int rank, double timeout_s) {
  return [rank, timeout_s](const std::string& where) {
    std::fprintf(stderr,
                 "topotune: error: rank %d: no progress for %.0f s (%s): a peer died or "
                 "hangs; aborting the run (no output written)\n",
                 rank, timeout_s, where.c_str());
    std::fflush(stderr);
    std::_Exit(1);
  };
}

Expected<void> run_measure(const MeasureArgs& a, std::ostream& out);

}  // namespace

CommandRun setup_measure(CLI::App& sub) {
  auto args = std::make_shared<MeasureArgs>();
  sub.add_option("--algos", args->algos,
                 "Comma-separated algorithms: schedule generators (ring, tree, rhd, ps, ps:cpu, "
                 "hierarchical, hierarchical:rhd, ...), labels as `topotune plan` prints them "
                 "(hierarchical(rhd), ps(k=2), ring/ch4: generated as the planner timed them), "
                 "and mpi (the MPI library's own collective, the baseline)")
      ->capture_default_str();
  sub.add_option("--sizes", args->sizes, "Sizes: A:B (doubling) or a list 1M,64M")
      ->capture_default_str();
  sub.add_option("--warmup", args->warmup, "Untimed iterations per point")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--iters", args->iters, "Timed iterations per point")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub.add_option("--dtype", args->dtype, "fp32, fp16 or bf16")->capture_default_str();
  sub.add_option("--timeout", args->timeout_s,
                 "Seconds without progress after which the run fails (a rank died or hangs), "
                 "0.001 to 1e6")
      ->capture_default_str()
      ->check(finite_range(0.001, 1e6));
  sub.add_option("--out", args->out, "Write the measurement JSON here (only on success)")
      ->check(non_empty_path());
  add_format_option(sub, args->format, {OutputFormat::Table, OutputFormat::Json, OutputFormat::Csv},
                    "table, json or csv (stdout of rank 0)");
  sub.add_option("--ranks-per-node", args->ranks_per_node,
                 "Ranks per host of the layout the schedules are generated for (1 to 1048576)")
      ->check(CLI::Range(1, 1 << 20));
  sub.add_option("--cluster", args->cluster,
                 "Cluster JSON (e.g. written by `topotune emulate up`) describing the layout")
      ->check(non_empty_path());
  sub.add_option("--channels", args->channels, "Algorithm option: parallel rings/trees")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub.add_option("--chunks", args->chunks, "Algorithm option: pipeline chunks per channel")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub.add_option("--backend", args->backend,
                 "mpi: host memory over MPI point-to-point (baseline algorithm `mpi`); nccl: "
                 "device memory over NCCL send/recv, one GPU per rank (baseline algorithm `nccl`)")
      ->capture_default_str()
      ->check(CLI::IsMember({"mpi", "nccl"}));
  sub.add_option("--collective", args->collective,
                 "allreduce, allgather or reduce_scatter: what every algorithm runs (the "
                 "baselines: `mpi` MPI_Allreduce, MPI_Allgatherv, MPI_Reduce_scatter; `nccl` "
                 "ncclAllReduce, ncclAllGather, ncclReduceScatter, whose blocks must be equal); "
                 "sizes are the whole buffer, as nccl-tests'")
      ->capture_default_str()
      ->check(CLI::IsMember({"allreduce", "allgather", "reduce_scatter"}));
  sub.footer(
      "Launch with mpirun, e.g.\n"
      "  mpirun -np 4 topotune measure --algos ring,mpi --sizes 1M:64M --ranks-per-node 2\n"
      "  mpirun -np 4 topotune measure --algos 'hierarchical(rhd),ring' --ranks-per-node 2\n"
      "  mpirun -np 4 topotune measure --collective reduce_scatter --algos hierarchical,ring,mpi "
      "--ranks-per-node 2\n"
      "Inside an emulated cluster: topotune emulate run -- topotune measure --cluster "
      "DIR/cluster.json");
  return [args](std::ostream& out) { return run_measure(*args, out); };
}

namespace {

rt::Measurement describe_run(const MeasureArgs& a, sched::Collective collective, int ranks,
                             const std::vector<std::string>& hosts) {
  rt::Measurement m;
  m.source = "topotune-measure";
  m.collective = collective;
  m.backend = a.backend;
  m.ranks = ranks;
  m.nodes = static_cast<int>(std::set<std::string>(hosts.begin(), hosts.end()).size());
  if (m.ranks % *m.nodes == 0) m.gpus_per_node = m.ranks / *m.nodes;
  if (!a.cluster.empty()) m.cluster = a.cluster;
  m.channels = a.channels;  // validate regenerates the same schedules
  m.chunks = a.chunks;
  return m;
}

Expected<void> check_sizes(const std::vector<Bytes>& sizes, sched::DataType dtype) {
  for (Bytes s : sizes) {
    if (s.value % sched::dtype_size(dtype) != 0) {
      return fail(Errc::InvalidArgument,
                  "size " + std::to_string(s.value) + " is not a multiple of the element size");
    }
  }
  return {};
}

/// This process's rank as the launcher set it, before MPI starts (Open MPI, PMIx, MPICH's
/// PMI); 0 when it runs alone (a singleton).
int launch_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    if (const char* v = std::getenv(name)) return std::atoi(v);
  }
  return 0;
}

Expected<void> run_measure(const MeasureArgs& a, std::ostream& out) {
  TT_TRY(std::vector<Bytes> sizes, parse_size_list(a.sizes));
  TT_TRY(sched::DataType dtype, sched::parse_dtype(a.dtype));
  TT_TRY(const sched::Collective collective, sched::parse_collective(a.collective));
  TT_TRY_VOID(check_sizes(sizes, dtype));
  const std::vector<std::string> algos = split_comma_list(a.algos);
  if (algos.empty()) return fail(Errc::InvalidArgument, "--algos is empty");
  // Bad input, so exit 2 with one line before MPI starts (after it, a refusal can only be
  // an MPI_Abort). The rank that writes the file checks it on its own host.
  if (launch_rank() == 0 && !a.out.empty()) TT_TRY_VOID(check_output_path(a.out).context("--out"));
  TT_TRY(rt::MpiSession session, rt::MpiSession::start(nullptr, nullptr));
  TT_TRY(rt::MpiTransport transport, rt::MpiTransport::create());
  const int me = transport.rank().value;
  if (me == 0 && !a.out.empty()) {  // before any run: the result file must be writable
    if (Expected<void> c = check_output_path(a.out); !c) abort_job(me, c.error().context("--out"));
  }
  TT_TRY(std::vector<std::string> hosts, transport.processor_names());
  std::optional<topo::ClusterSpec> cluster;  // --cluster decides the layout
  if (!a.cluster.empty()) {
    TT_TRY(cluster, topo::load_cluster_file(a.cluster));
  }
  TT_TRY(tune::MeasureLayout layout,
         tune::make_measure_layout(std::move(cluster), a.cluster, a.ranks_per_node, hosts));
  layout.channels = a.channels;
  layout.chunks = a.chunks;
  TT_TRY(
      MeasureBackend backend,
      make_measure_backend(a.backend == "nccl" ? MeasureBackendKind::Nccl : MeasureBackendKind::Mpi,
                           a.warmup, a.iters, dtype, collective, layout, transport));
  rt::Watchdog watchdog(Seconds(a.timeout_s), exit_on_stall(me, a.timeout_s));
  rt::Measurement m = describe_run(a, collective, transport.world_size(), hosts);
  m.nccl_version = backend.nccl_version;
  std::unique_ptr<Reporter> reporter;  // rank 0 reports the rows as they are measured
  if (me == 0 && a.format != OutputFormat::Json) {
    reporter = start_measure_report(a.format, m, a.warmup, a.iters, out);
  }
  rt::MeasureLoopHooks hooks = report_hooks(me, reporter.get());
  hooks.on_fatal = [me](const Error& e) { abort_job(me, e); };
  TT_TRY(m.rows, rt::run_measure_loop(*backend.harness, watchdog, {algos, sizes},
                                      backend.make_candidate, hooks));
  TT_TRY(m.ranks_cpu_s, transport.sum_over_ranks(rt::process_cpu_time().value));
  if (me != 0) return {};
  if (!a.out.empty()) TT_TRY_VOID(write_file_atomically(a.out, rt::to_json(m)).context("--out"));
  if (reporter) reporter->end();
  if (a.format == OutputFormat::Json) out << rt::to_json(m);
  return {};
}

}  // namespace
}  // namespace topotune::cli
