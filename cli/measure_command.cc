// `topotune measure`: runs allreduce algorithms on real processes (launched with mpirun) and
// reports nccl-tests-style numbers; see docs/runtime.md.
//
// Every rank runs this command. Schedules come from the algorithms registry for the measured
// layout (--ranks-per-node or the emulated cluster's JSON), `mpi` is the library's own
// MPI_Allreduce. Failure policy: nothing may hang and no partial JSON may appear.
//  * a rank whose run fails prints "topotune: error: rank R: ..." and calls MPI_Abort, which
//    tears the job down (returning would reach MPI_Finalize, which waits for the others);
//  * a watchdog thread per rank ends the process (exit 1, with the error printed) when no
//    iteration has started for --timeout seconds, i.e. a peer died or hangs;
//  * a dead peer also surfaces as an MPI error (MPI_ERRORS_RETURN) or as mpirun killing the job;
//  * rank 0 writes --out only after the last point and a final barrier, atomically.

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <ostream>
#include <set>
#include <thread>

#include "cli/commands.h"
#include "cli/measure_schedules.h"
#include "cli/output_format.h"
#include "core/file_output.h"
#include "core/quantity_parse.h"
#include "core/string_printf.h"
#include "runtime/executor.h"
#include "runtime/host_reducer.h"
#include "runtime/measure_harness.h"
#include "runtime/mpi_transport.h"
#ifdef TOPOTUNE_HAVE_NCCL_MPI
#include "runtime/nccl/device_executor.h"
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

// Ends the process if no progress is reported for `timeout` (a peer died or hangs). Runs on its
// own thread and never calls MPI (MPI_THREAD_FUNNELED): exiting without MPI_Finalize makes
// mpirun abort the rest of the job.
class Watchdog {
 public:
  Watchdog(double timeout_s, int rank) : timeout_(timeout_s), rank_(rank) {
    thread_ = std::thread([this] { loop(); });
  }
  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void kick(std::string where) {
    std::lock_guard lock(mutex_);
    where_ = std::move(where);
    last_ = std::chrono::steady_clock::now();
  }

 private:
  void loop() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
      const auto deadline = last_ + std::chrono::duration<double>(timeout_);
      if (std::chrono::steady_clock::now() >= deadline) {
        std::fprintf(stderr,
                     "topotune: error: rank %d: no progress for %.0f s (%s): a peer died or "
                     "hangs; aborting the run (no output written)\n",
                     rank_, timeout_, where_.c_str());
        std::fflush(stderr);
        std::_Exit(1);
      }
      cv_.wait_until(lock,
                     std::chrono::time_point_cast<std::chrono::steady_clock::duration>(deadline));
    }
  }

  double timeout_;
  int rank_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::string where_ = "starting";
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  std::thread thread_;
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

// Everything one rank needs for one (algorithm, size) point; kept alive while it is measured.
struct PointState {
  std::optional<sched::Schedule> schedule;
  rt::Executor executor;
  rt::HostReducer reducer;
};

Expected<rt::Candidate> make_candidate(const std::string& algo, std::int64_t bytes,
                                       sched::DataType dtype, const MeasureLayout& layout,
                                       rt::MpiTransport& t, PointState& st) {
  if (algo == "mpi") {
    return rt::Candidate{"mpi", [&t, dtype](rt::BufferView b) { return t.allreduce(b, dtype); }};
  }
  sched::CollectiveSpec spec;
  spec.ranks = t.world_size();
  spec.dtype = dtype;
  spec.bytes = Bytes(bytes);
  TT_TRY(sched::Schedule s, make_measure_schedule(algo, spec, layout));
  st.schedule.emplace(std::move(s));
  // Planning happens here, outside the timed region.
  TT_TRY_VOID(st.executor.prepare(*st.schedule, t.rank(), t.max_tag()));
  return rt::Candidate{algo, [&t, &st](rt::BufferView b) {
                         return st.executor.run(*st.schedule, t.rank(), b, t, st.reducer);
                       }};
}

[[noreturn]] void abort_job(int rank, const Error& e) {
  std::fprintf(stderr, "topotune: error: rank %d: %s\n", rank, e.message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
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

// What every rank shares during a run.
struct RunContext {
  const MeasureArgs& args;
  sched::DataType dtype;
  MeasureLayout layout;
  rt::MpiTransport& transport;
  Watchdog& watchdog;
  bool progress_line = false;
  bool stall_me = false;
};

rt::Measurement describe_run(const MeasureArgs& a, int ranks,
                             const std::vector<std::string>& hosts) {
  rt::Measurement m;
  m.source = "topotune-measure";
  m.backend = "mpi";
  m.ranks = ranks;
  m.nodes = static_cast<int>(std::set<std::string>(hosts.begin(), hosts.end()).size());
  if (m.ranks % *m.nodes == 0) m.gpus_per_node = m.ranks / *m.nodes;
  if (!a.cluster.empty()) m.cluster = a.cluster;
  m.channels = a.channels;  // validate regenerates the same schedules
  m.chunks = a.chunks;
  return m;
}

// One (algorithm, size) point on this rank; rank 0 gets the row. Transport failures abort
// the job (see the file comment); bad input is the same on every rank and is returned.
Expected<std::optional<rt::MeasurementRow>> measure_point(RunContext& ctx, rt::MeasureHarness& h,
                                                          const std::string& algo, Bytes size) {
  const int me = ctx.transport.rank().value;
  PointState st;
  Expected<rt::Candidate> c =
      make_candidate(algo, size.value, ctx.dtype, ctx.layout, ctx.transport, st);
  if (!c) {
    if (c.error().code == Errc::Transport) abort_job(me, c.error());
    return Unexpected(std::move(c).error());
  }
  auto on_progress = [&](const rt::HarnessProgress& p) {
    ctx.watchdog.kick(algo + " " + format_size(size) + " iteration " + std::to_string(p.iteration));
    if (ctx.stall_me && p.iteration == 0) std::this_thread::sleep_for(std::chrono::hours(1));
    if (ctx.progress_line) {
      std::fprintf(stderr, "\r%-14s %8s  iteration %d/%d   ", algo.c_str(),
                   format_size(size).c_str(), p.iteration + 1, p.iterations);
    }
  };
  Expected<std::optional<rt::MeasurementRow>> row = h.measure(*c, size.value, on_progress);
  if (!row) abort_job(me, row.error());
  if (ctx.progress_line) std::fprintf(stderr, "\r%60s\r", "");
  return row;
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

#ifdef TOPOTUNE_HAVE_NCCL_MPI
// The device candidate for one algorithm: `nccl` is ncclAllReduce; a schedule runs on the
// DeviceExecutor (queued in transfer-id order on the transport's stream, docs/gpu.md).
struct DevicePointState {
  std::optional<sched::Schedule> schedule;
  rt::DeviceExecutor executor;
};

Expected<rt::DeviceCandidate> make_device_candidate(const std::string& algo, Bytes size,
                                                    sched::DataType dtype,
                                                    const MeasureLayout& layout,
                                                    rt::NcclBackend& backend,
                                                    DevicePointState& st) {
  rt::NcclTransport& t = *backend.transport;
  if (algo == "nccl") return rt::nccl_allreduce_candidate(t, dtype);
  if (algo == "mpi") {
    return fail(Errc::InvalidArgument,
                "algorithm `mpi` needs --backend mpi (use `nccl` as the baseline)");
  }
  sched::CollectiveSpec spec;
  spec.ranks = t.world_size();
  spec.dtype = dtype;
  spec.bytes = size;
  TT_TRY(sched::Schedule s, make_measure_schedule(algo, spec, layout));
  st.schedule.emplace(std::move(s));
  TT_TRY_VOID(st.executor.prepare(*st.schedule, t.rank()));
  return rt::DeviceCandidate{algo, [&backend, &st](rt::BufferView b) {
                               return st.executor.run(*st.schedule, backend.transport->rank(), b,
                                                      *backend.transport, *backend.reducer);
                             }};
}

// --backend nccl: the same table and JSON as the MPI backend, timed with CUDA events.
Expected<void> run_measure_nccl(const MeasureArgs& a, const std::vector<Bytes>& sizes,
                                sched::DataType dtype, const std::vector<std::string>& algos,
                                MeasureLayout layout, const std::vector<std::string>& hosts,
                                std::ostream& out) {
  TT_TRY(rt::NcclBackend backend, rt::make_nccl_backend(MPI_COMM_WORLD));
  const int me = backend.transport->rank().value;
  if (me == 0 && !a.out.empty()) {
    if (Expected<void> c = check_output_path(a.out); !c) abort_job(me, c.error().context("--out"));
  }
  Watchdog watchdog(a.timeout_s, me);
  rt::Measurement m = describe_run(a, backend.transport->world_size(), hosts);
  m.backend = "nccl";
  m.nccl_version = rt::nccl_version_string();
  if (me == 0 && a.format == OutputFormat::Table) {
    out << "# topotune measure: " << m.ranks << " ranks on " << *m.nodes << " hosts, backend nccl "
        << *m.nccl_version << ", " << a.warmup << " warm-up + " << a.iters
        << " timed iterations per point\n"
        << table_header(dtype) << std::flush;
  }
  const rt::NcclAllreduceOptions options{a.warmup, a.iters, true};
  for (const std::string& algo : algos) {
    for (Bytes size : sizes) {
      DevicePointState st;
      TT_TRY(rt::DeviceCandidate c, make_device_candidate(algo, size, dtype, layout, backend, st));
      auto progress = [&](int k) {
        watchdog.kick(algo + " " + format_size(size) + " iteration " + std::to_string(k));
      };
      Expected<rt::MeasurementRow> row =
          rt::measure_on_device(*backend.transport, c, size.value, dtype, options, progress);
      if (!row) abort_job(me, row.error());
      if (me == 0 && a.format == OutputFormat::Table) out << table_row(*row) << std::flush;
      m.rows.push_back(std::move(*row));
    }
  }
  watchdog.kick("final barrier");
  if (Expected<void> b = backend.transport->barrier(); !b) abort_job(me, b.error());
  if (me != 0) return {};
  if (!a.out.empty()) TT_TRY_VOID(write_file_atomically(a.out, rt::to_json(m)).context("--out"));
  if (a.format == OutputFormat::Json) out << rt::to_json(m);
  return {};
}
#endif

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
  if (a.backend == "nccl") {
#ifdef TOPOTUNE_HAVE_NCCL_MPI
    return run_measure_nccl(a, sizes, dtype, algos, layout, hosts, out);
#else
    return fail(Errc::Unsupported,
                "--backend nccl: this topotune was built without CUDA/NCCL (see docs/gpu.md)");
#endif
  }
  Watchdog watchdog(a.timeout_s, me);
  const char* stall = std::getenv("TOPOTUNE_TEST_STALL_RANK");  // test hook (docs/runtime.md)
  RunContext ctx{a,
                 dtype,
                 layout,
                 transport,
                 watchdog,
                 me == 0 && ::isatty(STDERR_FILENO),
                 stall && std::atoi(stall) == me};
  rt::Measurement m = describe_run(a, transport.world_size(), hosts);
  if (me == 0 && a.format == OutputFormat::Table) {
    out << "# topotune measure: " << m.ranks << " ranks on " << *m.nodes << " hosts, backend mpi, "
        << a.warmup << " warm-up + " << a.iters << " timed iterations per point\n"
        << table_header(dtype) << std::flush;
  }
  rt::MeasureHarness harness(transport, rt::HarnessOptions{a.warmup, a.iters, dtype});
  for (const std::string& algo : algos) {
    for (Bytes size : sizes) {
      TT_TRY(std::optional<rt::MeasurementRow> row, measure_point(ctx, harness, algo, size));
      if (!row) continue;
      if (a.format == OutputFormat::Table) out << table_row(*row) << std::flush;
      m.rows.push_back(std::move(*row));
    }
  }
  watchdog.kick("final barrier");
  if (Expected<void> b = transport.barrier(); !b) abort_job(me, b.error());
  if (me != 0) return {};
  if (!a.out.empty()) TT_TRY_VOID(write_file_atomically(a.out, rt::to_json(m)).context("--out"));
  if (a.format == OutputFormat::Json) out << rt::to_json(m);
  return {};
}

}  // namespace
}  // namespace topotune::cli
