#include "cli/measure_candidates.h"

#include "runtime/measure_harness.h"
#include "runtime/schedule_candidate.h"
#ifdef TOPOTUNE_HAVE_NCCL_MPI
#include "runtime/nccl/device_harness.h"
#include "runtime/nccl/nccl_measure.h"
#endif

namespace topotune::cli {
namespace {

Expected<sched::Schedule> schedule_for(const std::string& algorithm, Bytes size, int ranks,
                                       sched::DataType dtype, sched::Collective collective,
                                       const tune::MeasureLayout& layout) {
  sched::CollectiveSpec spec;
  spec.collective = collective;
  spec.ranks = ranks;
  spec.dtype = dtype;
  spec.bytes = size;
  return tune::make_measure_schedule(algorithm, spec, layout);
}

}  // namespace

Expected<rt::Candidate> make_host_candidate(const std::string& algorithm, Bytes size,
                                            sched::DataType dtype, sched::Collective collective,
                                            const tune::MeasureLayout& layout,
                                            rt::MpiTransport& t) {
  if (algorithm == "mpi") {
    return rt::Candidate{"mpi", [&t, dtype, collective](rt::BufferView b) {
                           if (collective == sched::Collective::ReduceScatter) {
                             return t.reduce_scatter(b, dtype);
                           }
                           if (collective == sched::Collective::Allgather) {
                             return t.allgather(b, dtype);
                           }
                           return t.allreduce(b, dtype);
                         }};
  }
  TT_TRY(sched::Schedule s,
         schedule_for(algorithm, size, t.world_size(), dtype, collective, layout));
  return rt::schedule_candidate(algorithm, std::move(s), t);
}

#ifdef TOPOTUNE_HAVE_NCCL_MPI
Expected<rt::Candidate> make_device_candidate(const std::string& algorithm, Bytes size,
                                              sched::DataType dtype, sched::Collective collective,
                                              const tune::MeasureLayout& layout,
                                              rt::NcclBackend& backend) {
  rt::NcclTransport& t = *backend.transport;
  if (algorithm == "nccl") return rt::nccl_collective_candidate(t, dtype, collective);
  if (algorithm == "mpi") {
    return fail(Errc::InvalidArgument,
                "algorithm `mpi` needs --backend mpi (use `nccl` as the baseline)");
  }
  TT_TRY(sched::Schedule s,
         schedule_for(algorithm, size, t.world_size(), dtype, collective, layout));
  return rt::device_schedule_candidate(algorithm, std::move(s), t, *backend.reducer);
}
#endif

Expected<MeasureBackend> make_measure_backend(MeasureBackendKind kind, int warmup, int iterations,
                                              sched::DataType dtype, sched::Collective collective,
                                              const tune::MeasureLayout& layout,
                                              rt::MpiTransport& t) {
  MeasureBackend b;
  if (kind == MeasureBackendKind::Nccl) {
#ifdef TOPOTUNE_HAVE_NCCL_MPI
    TT_TRY(rt::NcclBackend nccl, rt::make_nccl_backend(MPI_COMM_WORLD));
    b.nccl = std::make_shared<rt::NcclBackend>(std::move(nccl));
    b.nccl_version = rt::nccl_version_string();
    b.harness = std::make_unique<rt::DeviceHarness>(
        *b.nccl->transport, dtype, rt::NcclAllreduceOptions{warmup, iterations, true, collective});
    b.make_candidate = [nccl = b.nccl, dtype, collective, layout](const std::string& algo,
                                                                  Bytes size) {
      return make_device_candidate(algo, size, dtype, collective, layout, *nccl);
    };
    return b;
#else
    return fail(Errc::Unsupported,
                "--backend nccl: this topotune was built without CUDA/NCCL (see docs/gpu.md)");
#endif
  }
  b.harness = std::make_unique<rt::MeasureHarness>(
      t, rt::HarnessOptions{warmup, iterations, dtype, collective});
  b.make_candidate = [&t, dtype, collective, layout](const std::string& algo, Bytes size) {
    return make_host_candidate(algo, size, dtype, collective, layout, t);
  };
  return b;
}

}  // namespace topotune::cli
