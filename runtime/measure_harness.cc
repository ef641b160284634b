#include "runtime/measure_harness.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "runtime/host_reducer.h"

namespace topotune::rt {
namespace {

constexpr Tag kTimesTagOffset = 1;  // below max_tag(): within the reserved range

void store_value(std::byte* p, sched::DataType t, float v) {
  switch (t) {
    case sched::DataType::F32:
      std::memcpy(p, &v, 4);
      return;
    case sched::DataType::F16: {
      const std::uint16_t h = float_to_half(v);
      std::memcpy(p, &h, 2);
      return;
    }
    case sched::DataType::BF16: {
      const std::uint16_t h = float_to_bf16(v);
      std::memcpy(p, &h, 2);
      return;
    }
  }
}

int exact_limit(sched::DataType t) {
  switch (t) {
    case sched::DataType::F32:
      return 1 << 24;
    case sched::DataType::F16:
      return 2048;
    case sched::DataType::BF16:
      return 256;
  }
  return 256;
}

}  // namespace

int input_value(int rank, std::int64_t i, int ranks, sched::DataType dtype) {
  const int m = std::clamp(exact_limit(dtype) / std::max(ranks, 1), 1, 16);
  return static_cast<int>((i * 7 + static_cast<std::int64_t>(rank) * 3) % m) + 1;
}

Spread spread_of(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.min = v.front();
  s.max = v.back();
  s.p10 = v[n / 10];
  s.p90 = v[n - 1 - n / 10];
  return s;
}

void MeasureHarness::prepare_buffers(std::int64_t bytes) {
  if (prepared_bytes_ == bytes) return;
  const sched::DataType t = options_.dtype;
  const sched::Collective c = options_.collective;
  const int esize = sched::dtype_size(t);
  const int n = transport_.world_size();
  const int me = transport_.rank().value;
  const auto size = static_cast<std::size_t>(bytes);
  input_.assign(size, std::byte{0});
  expected_.assign(size, std::byte{0});
  buffer_.resize(size);
  check_begin_ = 0;
  check_end_ = size;
  for (int owner = 0; owner < n; ++owner) {
    const sched::Slice b = sched::block(sched::Slice{Bytes(0), Bytes(bytes)}, esize, owner, n);
    if (c == sched::Collective::ReduceScatter && owner == me) {
      check_begin_ = static_cast<std::size_t>(b.offset.value);
      check_end_ = static_cast<std::size_t>(b.end().value);
    }
    for (std::int64_t i = b.offset.value / esize; i < b.end().value / esize; ++i) {
      const auto at = static_cast<std::size_t>(i * esize);
      if (c != sched::Collective::Allgather || owner == me) {
        store_value(&input_[at], t, static_cast<float>(input_value(me, i, n, t)));
      }
      int want = 0;  // allgather: the owner's input; the reductions: the sum over ranks
      if (c == sched::Collective::Allgather) {
        want = input_value(owner, i, n, t);
      } else {
        for (int r = 0; r < n; ++r) want += input_value(r, i, n, t);
      }
      store_value(&expected_[at], t, static_cast<float>(want));
    }
  }
  prepared_bytes_ = bytes;
}

std::int64_t MeasureHarness::count_wrong() const {
  const std::size_t len = check_end_ - check_begin_;
  if (std::memcmp(buffer_.data() + check_begin_, expected_.data() + check_begin_, len) == 0) {
    return 0;
  }
  const int esize = sched::dtype_size(options_.dtype);
  std::int64_t wrong = 0;
  for (std::size_t off = check_begin_; off < check_end_; off += static_cast<std::size_t>(esize)) {
    wrong += std::memcmp(&buffer_[off], &expected_[off], static_cast<std::size_t>(esize)) != 0;
  }
  return wrong;
}

Expected<std::optional<MeasurementRow>> MeasureHarness::measure(const Candidate& c,
                                                                std::int64_t bytes,
                                                                const ProgressFn& progress) {
  prepare_buffers(bytes);
  std::vector<double> times;
  std::int64_t wrong = 0;
  for (int it = -options_.warmup; it < options_.iterations; ++it) {
    if (progress) progress(HarnessProgress{&c.name, bytes, it, options_.iterations});
    std::memcpy(buffer_.data(), input_.data(), buffer_.size());
    TT_TRY_VOID(transport_.barrier().context("barrier before " + c.name));
    const auto t0 = std::chrono::steady_clock::now();
    TT_TRY_VOID(c.run(BufferView{buffer_.data(), buffer_.size()})
                    .context(c.name + " at " + std::to_string(bytes) + " bytes"));
    const auto t1 = std::chrono::steady_clock::now();
    if (it < 0) continue;
    times.push_back(std::chrono::duration<double>(t1 - t0).count());
    wrong += count_wrong();
  }
  return gather(c, bytes, times, wrong);
}

Expected<std::optional<MeasurementRow>> MeasureHarness::gather(const Candidate& c,
                                                               std::int64_t bytes,
                                                               const std::vector<double>& times,
                                                               std::int64_t wrong) {
  const int n = transport_.world_size();
  const Tag tag = transport_.max_tag() - kTimesTagOffset;
  // Each rank's message: its iteration times then its wrong-element count (as a double: exact
  // below 2^53).
  std::vector<double> mine(times);
  mine.push_back(static_cast<double>(wrong));
  const std::size_t len = mine.size() * sizeof(double);
  if (transport_.rank().value != 0) {
    TT_TRY(
        Request r,
        transport_.isend(
            RankId(0), ConstBufferView(reinterpret_cast<const std::byte*>(mine.data()), len), tag));
    std::vector<Request> rs = {r};
    TT_TRY_VOID(transport_.wait_all(rs).context("sending times to rank 0"));
    return std::optional<MeasurementRow>();
  }
  std::vector<std::vector<double>> all(static_cast<std::size_t>(n), mine);
  std::vector<Request> rs;
  for (int r = 1; r < n; ++r) {
    auto& v = all[static_cast<std::size_t>(r)];
    TT_TRY(Request q, transport_.irecv(
                          RankId(r), BufferView{reinterpret_cast<std::byte*>(v.data()), len}, tag));
    rs.push_back(q);
  }
  TT_TRY_VOID(transport_.wait_all(rs).context("collecting times at rank 0"));
  std::vector<double> per_iteration(times.size(), 0.0);
  std::int64_t total_wrong = 0;
  for (const auto& v : all) {
    for (std::size_t k = 0; k < times.size(); ++k)
      per_iteration[k] = std::max(per_iteration[k], v[k]);
    total_wrong += static_cast<std::int64_t>(v.back());
  }
  const Spread s = spread_of(per_iteration);
  MeasurementRow row;
  row.algorithm = c.name;
  row.bytes = bytes;
  row.dtype = options_.dtype;
  row.count = bytes / sched::dtype_size(options_.dtype);
  row.time_us = s.median * 1e6;
  row.algbw_GBps = s.median > 0 ? static_cast<double>(bytes) / s.median / 1e9 : 0.0;
  row.busbw_GBps = row.algbw_GBps * sched::busbw_factor(options_.collective, n);
  row.time_us_min = s.min * 1e6;
  row.time_us_p10 = s.p10 * 1e6;
  row.time_us_p90 = s.p90 * 1e6;
  row.time_us_max = s.max * 1e6;
  row.iterations = static_cast<int>(times.size());
  row.errors = total_wrong;
  return std::optional<MeasurementRow>(std::move(row));
}

}  // namespace topotune::rt
