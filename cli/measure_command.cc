// `topotune measure`: runs allreduce algorithms on real processes (launched with mpirun) and
// reports nccl-tests-style numbers; see docs/runtime.md.
//
// Every rank runs this command. The loop, its watchdog and its failure policy are the
// runtime's (runtime/measure_loop.h); this file chooses the harness (host memory over MPI, or
// device memory over NCCL), makes the candidates (cli/measure_candidates.h) and reports:
//  * a rank whose run fails prints "topotune: error: rank R: ..." and calls MPI_Abort, which
//    tears the job down (returning would reach MPI_Finalize, which waits for the others);
//  * a rank whose watchdog sees no progress for --timeout seconds prints the same kind of
//    line and exits 1 without MPI_Finalize, so mpirun ends the job;
//  * rank 0 writes --out only after the last point and a final barrier, atomically.

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <ostream>
#include <set>

#include "cli/commands.h"
#include "cli/measure_candidates.h"
#include "cli/output_format.h"
#include "core/file_output.h"
#include "core/quantity_parse.h"
#include "core/string_printf.h"
#include "runtime/measure_harness.h"
#include "runtime/measure_loop.h"
#include "runtime/mpi_transport.h"
#ifdef TOPOTUNE_HAVE_NCCL_MPI
#include "runtime/nccl/device_harness.h"
#include "runtime/nccl/nccl_measure.h"
#include "runtime/nccl/nccl_mpi_bootstrap.h"
#endif

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
};

std::string table_header(sched::DataType) {
  std::string line;
  line = string_printf("#%11s %12s %6s %12s %10s %10s  %-14s %7s\n", "size", "count", "type",
                       "time(us)", "algbw", "busbw", "algorithm", "#wrong");
  std::string h = line;
  line = string_printf("#%11s %12s %6s %12s %10s %10s  %-14s %7s\n", "(B)", "(elements)", "", "",
                       "(GB/s)", "(GB/s)", "", "");
  return h + line;
}

std::string table_row(const rt::MeasurementRow& r) {
  std::string line;
  line = string_printf(" %11lld %12lld %6s %12.1f %10.4f %10.4f  %-14s %7lld\n",
                       static_cast<long long>(r.bytes), static_cast<long long>(r.count),
                       sched::dtype_name(r.dtype), r.time_us, r.algbw_GBps, r.busbw_GBps,
                       r.algorithm.c_str(), static_cast<long long>(r.errors.value_or(0)));
  return line;
}

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
                 "and mpi (MPI_Allreduce, the baseline)")
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
                 "Seconds without progress after which the run fails (a rank died or hangs)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub.add_option("--out", args->out, "Write the measurement JSON here (only on success)");
  add_format_option(sub, args->format, {OutputFormat::Table, OutputFormat::Json},
                    "table or json (stdout of rank 0)");
  sub.add_option("--ranks-per-node", args->ranks_per_node,
                 "Ranks per host of the layout the schedules are generated for");
  sub.add_option("--cluster", args->cluster,
                 "Cluster JSON (e.g. written by `topotune emulate up`) describing the layout");
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
  sub.footer(
      "Launch with mpirun, e.g.\n"
      "  mpirun -np 4 topotune measure --algos ring,mpi --sizes 1M:64M --ranks-per-node 2\n"
      "  mpirun -np 4 topotune measure --algos 'hierarchical(rhd),ring' --ranks-per-node 2\n"
      "Inside an emulated cluster: topotune emulate run -- topotune measure --cluster "
      "DIR/cluster.json");
  return [args](std::ostream& out) { return run_measure(*args, out); };
}

namespace {

rt::Measurement describe_run(const MeasureArgs& a, int ranks,
                             const std::vector<std::string>& hosts) {
  rt::Measurement m;
  m.source = "topotune-measure";
  m.backend = a.backend;
  m.ranks = ranks;
  m.nodes = static_cast<int>(std::set<std::string>(hosts.begin(), hosts.end()).size());
  if (m.ranks % *m.nodes == 0) m.gpus_per_node = m.ranks / *m.nodes;
  if (!a.cluster.empty()) m.cluster = a.cluster;
  m.channels = a.channels;  // validate regenerates the same schedules
  m.chunks = a.chunks;
#ifdef TOPOTUNE_HAVE_NCCL_MPI
  if (a.backend == "nccl") m.nccl_version = rt::nccl_version_string();
#endif
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

// What the loop runs on: the harness and candidates of the chosen backend.
struct Backend {
  std::unique_ptr<rt::Harness> harness;
  rt::CandidateFactory make_candidate;
#ifdef TOPOTUNE_HAVE_NCCL_MPI
  std::shared_ptr<rt::NcclBackend> nccl;
#endif
};

Expected<Backend> make_backend(const MeasureArgs& a, sched::DataType dtype,
                               const MeasureLayout& layout, rt::MpiTransport& t) {
  Backend b;
  if (a.backend == "nccl") {
#ifdef TOPOTUNE_HAVE_NCCL_MPI
    TT_TRY(rt::NcclBackend nccl, rt::make_nccl_backend(MPI_COMM_WORLD));
    b.nccl = std::make_shared<rt::NcclBackend>(std::move(nccl));
    b.harness = std::make_unique<rt::DeviceHarness>(
        *b.nccl->transport, dtype, rt::NcclAllreduceOptions{a.warmup, a.iters, true});
    b.make_candidate = [nccl = b.nccl, dtype, layout](const std::string& algo, Bytes size) {
      return make_device_candidate(algo, size, dtype, layout, *nccl);
    };
    return b;
#else
    return fail(Errc::Unsupported,
                "--backend nccl: this topotune was built without CUDA/NCCL (see docs/gpu.md)");
#endif
  }
  b.harness = std::make_unique<rt::MeasureHarness>(t, rt::HarnessOptions{a.warmup, a.iters, dtype});
  b.make_candidate = [&t, dtype, layout](const std::string& algo, Bytes size) {
    return make_host_candidate(algo, size, dtype, layout, t);
  };
  return b;
}

// Rank 0 on a terminal: one overwritten line per iteration.
rt::MeasureLoopHooks report_hooks(const MeasureArgs& a, int me, std::ostream& out) {
  rt::MeasureLoopHooks hooks;
  hooks.on_fatal = [me](const Error& e) { abort_job(me, e); };
  if (a.format == OutputFormat::Table) {
    hooks.on_row = [&out](const rt::MeasurementRow& r) { out << table_row(r) << std::flush; };
  }
  if (me == 0 && ::isatty(STDERR_FILENO)) {
    hooks.on_progress = [](const rt::HarnessProgress& p) {
      std::fprintf(stderr, "\r%-14s %8s  iteration %d/%d   ", p.algorithm->c_str(),
                   format_size(Bytes(p.bytes)).c_str(), p.iteration + 1, p.iterations);
    };
    hooks.on_point_done = [] { std::fprintf(stderr, "\r%60s\r", ""); };
  }
  return hooks;
}

Expected<void> run_measure(const MeasureArgs& a, std::ostream& out) {
  TT_TRY(std::vector<Bytes> sizes, parse_size_list(a.sizes));
  TT_TRY(sched::DataType dtype, sched::parse_dtype(a.dtype));
  TT_TRY_VOID(check_sizes(sizes, dtype));
  const std::vector<std::string> algos = split_comma_list(a.algos);
  if (algos.empty()) return fail(Errc::InvalidArgument, "--algos is empty");
  TT_TRY(rt::MpiSession session, rt::MpiSession::start(nullptr, nullptr));
  TT_TRY(rt::MpiTransport transport, rt::MpiTransport::create());
  const int me = transport.rank().value;
  if (me == 0 && !a.out.empty()) {  // before any run: the result file must be writable
    if (Expected<void> c = check_output_path(a.out); !c) abort_job(me, c.error().context("--out"));
  }
  TT_TRY(std::vector<std::string> hosts, transport.processor_names());
  TT_TRY(MeasureLayout layout, make_measure_layout(a.cluster, a.ranks_per_node, hosts));
  layout.channels = a.channels;
  layout.chunks = a.chunks;
  TT_TRY(Backend backend, make_backend(a, dtype, layout, transport));
  rt::Watchdog watchdog(Seconds(a.timeout_s), exit_on_stall(me, a.timeout_s));
  rt::Measurement m = describe_run(a, transport.world_size(), hosts);
  if (me == 0 && a.format == OutputFormat::Table) {
    out << "# topotune measure: " << m.ranks << " ranks on " << *m.nodes << " hosts, backend "
        << a.backend << (m.nccl_version ? " " + *m.nccl_version : std::string()) << ", " << a.warmup
        << " warm-up + " << a.iters << " timed iterations per point\n"
        << table_header(dtype) << std::flush;
  }
  TT_TRY(m.rows, rt::run_measure_loop(*backend.harness, watchdog, {algos, sizes},
                                      backend.make_candidate, report_hooks(a, me, out)));
  if (me != 0) return {};
  if (!a.out.empty()) TT_TRY_VOID(write_file_atomically(a.out, rt::to_json(m)).context("--out"));
  if (a.format == OutputFormat::Json) out << rt::to_json(m);
  return {};
}

}  // namespace
}  // namespace topotune::cli
