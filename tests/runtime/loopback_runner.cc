#include "tests/runtime/loopback_runner.h"

#include <cstring>
#include <optional>
#include <thread>

#include "runtime/executor.h"
#include "runtime/host_reducer.h"
#include "runtime/loopback_transport.h"

namespace topotune::rt::testing {

int input_value(int rank, std::int64_t i) { return static_cast<int>((i * 7 + rank * 3) % 16) + 1; }

void store(std::vector<std::byte>& buf, sched::DataType t, std::int64_t i, float v) {
  const auto off = static_cast<std::size_t>(i * sched::dtype_size(t));
  switch (t) {
    case sched::DataType::F32:
      std::memcpy(&buf[off], &v, 4);
      return;
    case sched::DataType::F16: {
      const std::uint16_t h = float_to_half(v);
      std::memcpy(&buf[off], &h, 2);
      return;
    }
    case sched::DataType::BF16: {
      const std::uint16_t h = float_to_bf16(v);
      std::memcpy(&buf[off], &h, 2);
      return;
    }
  }
}

float load(const std::vector<std::byte>& buf, sched::DataType t, std::int64_t i) {
  const auto off = static_cast<std::size_t>(i * sched::dtype_size(t));
  float f = 0;
  std::uint16_t h = 0;
  switch (t) {
    case sched::DataType::F32:
      std::memcpy(&f, &buf[off], 4);
      return f;
    case sched::DataType::F16:
      std::memcpy(&h, &buf[off], 2);
      return half_to_float(h);
    case sched::DataType::BF16:
      std::memcpy(&h, &buf[off], 2);
      return bf16_to_float(h);
  }
  return f;
}

namespace {

// Whether rank r starts with data at element i, for the collective's initial state.
bool owns_input(const sched::CollectiveSpec& spec, int r, std::int64_t i) {
  const int esize = sched::dtype_size(spec.dtype);
  switch (spec.collective) {
    case sched::Collective::Allreduce:
    case sched::Collective::ReduceScatter:
      return true;
    case sched::Collective::Broadcast:
      return r == spec.root.value;
    case sched::Collective::Allgather: {
      const sched::Slice b = sched::block(spec, r, spec.ranks);
      return i * esize >= b.offset.value && i * esize < b.end().value;
    }
  }
  return true;
}

// Expected value of element i at rank r after the collective, or nullopt if unspecified.
std::optional<float> expected_value(const sched::CollectiveSpec& spec, int r, std::int64_t i) {
  const int esize = sched::dtype_size(spec.dtype);
  int sum = 0;
  for (int q = 0; q < spec.ranks; ++q) sum += input_value(q, i);
  switch (spec.collective) {
    case sched::Collective::Allreduce:
      return static_cast<float>(sum);
    case sched::Collective::ReduceScatter: {
      const sched::Slice b = sched::block(spec, r, spec.ranks);
      if (i * esize < b.offset.value || i * esize >= b.end().value) return std::nullopt;
      return static_cast<float>(sum);
    }
    case sched::Collective::Broadcast:
      return static_cast<float>(input_value(spec.root.value, i));
    case sched::Collective::Allgather:
      for (int q = 0; q < spec.ranks; ++q) {
        if (owns_input(spec, q, i)) return static_cast<float>(input_value(q, i));
      }
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::vector<std::byte>> initial_buffers(const sched::CollectiveSpec& spec) {
  std::vector<std::vector<std::byte>> bufs(static_cast<std::size_t>(spec.ranks));
  for (int r = 0; r < spec.ranks; ++r) {
    auto& b = bufs[static_cast<std::size_t>(r)];
    b.resize(static_cast<std::size_t>(spec.bytes.value));
    for (std::int64_t i = 0; i < spec.elements(); ++i) {
      store(b, spec.dtype, i,
            owns_input(spec, r, i) ? static_cast<float>(input_value(r, i)) : -1.0f);
    }
  }
  return bufs;
}

Expected<void> run_loopback(const sched::Schedule& s, std::vector<std::vector<std::byte>>& buffers,
                            int runs, int max_tag) {
  const int n = s.num_ranks();
  LoopbackWorld world(n, max_tag);
  std::vector<std::string> errors(static_cast<std::size_t>(n));
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      Executor ex;
      HostReducer reducer;
      auto& buf = buffers[static_cast<std::size_t>(r)];
      const std::vector<std::byte> initial = buf;
      for (int k = 0; k < runs; ++k) {
        buf = initial;
        Expected<void> res = ex.run(s, RankId(r), BufferView{buf.data(), buf.size()},
                                    world.transport(RankId(r)), reducer);
        if (!res) {
          errors[static_cast<std::size_t>(r)] = res.error().message;
          world.abort("rank " + std::to_string(r) + " failed");
          return;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < n; ++r) {
    if (!errors[static_cast<std::size_t>(r)].empty()) {
      return fail(Errc::Transport,
                  "rank " + std::to_string(r) + ": " + errors[static_cast<std::size_t>(r)]);
    }
  }
  return {};
}

std::string check_result(const sched::CollectiveSpec& spec,
                         const std::vector<std::vector<std::byte>>& buffers) {
  for (int r = 0; r < spec.ranks; ++r) {
    for (std::int64_t i = 0; i < spec.elements(); ++i) {
      const std::optional<float> want = expected_value(spec, r, i);
      if (!want) continue;
      const float got = load(buffers[static_cast<std::size_t>(r)], spec.dtype, i);
      if (got != *want) {
        return "rank " + std::to_string(r) + " element " + std::to_string(i) + ": got " +
               std::to_string(got) + ", want " + std::to_string(*want);
      }
    }
  }
  return {};
}

}  // namespace topotune::rt::testing
