#pragma once
// MeasureHarness: times one collective implementation at one size on every rank, the way
// nccl-tests and the testbed's allred_bench do, and turns the times into a MeasurementRow.
//
// Per (candidate, size): every rank fills its buffer with its input (outside the timed region),
// then for warm-up and timed iterations alike: barrier, t0, run, t1; after each timed
// iteration the result is checked against the reference (inputs are small integers so sums
// are exact in the dtype, see input_value()): allreduce, every element is the sum over ranks;
// reduce-scatter, every element of this rank's block (sched::block) is; allgather (each rank
// starts with only its own block, zeros elsewhere), every element is its owner's input. An
// iteration lasts as long as its slowest rank: the per-rank times are sent to rank 0 at the end of
// the point (on tags reserved for the harness), which takes the max per iteration and reports the
// median and the spread (min, p10, p90, max) across iterations. Only rank 0 gets a row.
// Transport-agnostic: the same code runs over MPI (`topotune measure`) and loopback (tests).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/schedule/collective_spec.h"
#include "core/expected.h"
#include "measurement/measurement.h"
#include "runtime/harness.h"
#include "runtime/transport.h"

namespace topotune::rt {

struct HarnessOptions {
  int warmup = 2;
  int iterations = 5;
  sched::DataType dtype = sched::DataType::F32;
  /// Allreduce, ReduceScatter or Allgather (what the candidates run and the check expects).
  sched::Collective collective = sched::Collective::Allreduce;
};

/// Rank r's input element i for `ranks` ranks: an integer in [1, M], M chosen so that the sum
/// over all ranks is exact in `dtype` (<= 2^24 fp32, 2048 fp16, 256 bf16).
int input_value(int rank, std::int64_t i, int ranks, sched::DataType dtype);

/// Percentile of sorted values by nearest rank as allred_bench does (p10 = v[n/10]).
struct Spread {
  double median = 0, min = 0, p10 = 0, p90 = 0, max = 0;
};
Spread spread_of(std::vector<double> values);

/// The host-memory Harness over any Transport (MPI in `topotune measure`, loopback in tests).
class MeasureHarness final : public Harness {
 public:
  MeasureHarness(Transport& transport, HarnessOptions options)
      : transport_(transport), options_(options) {}

  int rank() const override { return transport_.rank().value; }
  int world_size() const override { return transport_.world_size(); }
  /// Measures `candidate` at `bytes` (a multiple of the element size). Collective: every rank
  /// calls it with the same arguments. Rank 0 gets the row; the other ranks get nullopt.
  Expected<std::optional<MeasurementRow>> measure(const Candidate& candidate, std::int64_t bytes,
                                                  const ProgressFn& progress = {}) override;
  Expected<void> barrier() override { return transport_.barrier(); }

 private:
  void prepare_buffers(std::int64_t bytes);
  std::int64_t count_wrong() const;
  Expected<std::optional<MeasurementRow>> gather(const Candidate& c, std::int64_t bytes,
                                                 const std::vector<double>& times,
                                                 std::int64_t wrong);

  Transport& transport_;
  HarnessOptions options_;
  std::int64_t prepared_bytes_ = -1;
  std::vector<std::byte> input_;     // this rank's pristine input
  std::vector<std::byte> expected_;  // the reference result
  std::size_t check_begin_ = 0;      // the bytes the check compares: this rank's block for
  std::size_t check_end_ = 0;        // reduce-scatter, the whole buffer otherwise
  std::vector<std::byte> buffer_;    // what the collective runs on
};

}  // namespace topotune::rt
