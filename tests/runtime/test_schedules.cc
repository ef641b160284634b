#include "tests/runtime/test_schedules.h"

#include <vector>

#include "core/assert.h"

namespace topotune::rt::testing {
namespace {

using sched::block;

using sched::Slice;

sched::Schedule finish(sched::ScheduleBuilder&& b) {
  auto s = std::move(b).build();
  TT_ASSERT(s.has_value(), "test schedule invalid: %s", s.error().message.c_str());
  return std::move(s).value();
}

EndpointId ep(int r) { return EndpointId(r); }

}  // namespace

sched::Schedule ring_allreduce(const sched::CollectiveSpec& spec, int chunks) {
  const int n = spec.ranks;
  const int esize = sched::dtype_size(spec.dtype);
  sched::ScheduleBuilder b(spec, "test-ring");
  for (int c = 0; c < chunks; ++c) {
    std::vector<TransferId> got(static_cast<std::size_t>(n));  // last receive at ring pos i
    for (int s = 0; s < 2 * (n - 1); ++s) {
      std::vector<TransferId> next(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) {
        const int to = (i + 1) % n;
        const int blk = ((i - s) % n + n) % n;
        const Slice piece = block(block(spec, blk, n), esize, c, chunks);
        next[static_cast<std::size_t>(to)] =
            b.add(ep(i), ep(to), piece, s < n - 1, got[static_cast<std::size_t>(i)], c);
      }
      got = std::move(next);
    }
  }
  return finish(std::move(b));
}

sched::Schedule ps_allreduce(const sched::CollectiveSpec& spec) {
  const int n = spec.ranks;
  sched::ScheduleBuilder b(spec, "test-ps");
  const EndpointId server = b.add_host_cpu(0, RankId(0));
  const Slice all{Bytes(0), spec.bytes};
  std::vector<TransferId> pushes;
  for (int r = 0; r < n; ++r) pushes.push_back(b.add(ep(r), server, all, true));
  for (int r = 0; r < n; ++r) b.add(server, ep(r), all, false, pushes);
  return finish(std::move(b));
}

sched::Schedule sharded_ps_allreduce(const sched::CollectiveSpec& spec) {
  const int n = spec.ranks;
  sched::ScheduleBuilder b(spec, "test-sharded-ps");
  std::vector<EndpointId> servers;
  for (int s = 0; s < n; ++s) servers.push_back(b.add_host_cpu(s, RankId(s)));
  std::vector<std::vector<TransferId>> pushes(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    for (int s = 0; s < n; ++s) {
      pushes[static_cast<std::size_t>(s)].push_back(
          b.add(ep(r), servers[static_cast<std::size_t>(s)], block(spec, s, n), true));
    }
  }
  for (int s = 0; s < n; ++s) {
    for (int r = 0; r < n; ++r) {
      b.add(servers[static_cast<std::size_t>(s)], ep(r), block(spec, s, n), false,
            pushes[static_cast<std::size_t>(s)]);
    }
  }
  return finish(std::move(b));
}

sched::Schedule tree_allreduce(const sched::CollectiveSpec& spec) {
  const int n = spec.ranks;
  sched::ScheduleBuilder b(spec, "test-tree");
  const Slice all{Bytes(0), spec.bytes};
  // Children are reduced into parents from the leaves up: rank i's parent is (i-1)/2.
  std::vector<std::vector<TransferId>> into(static_cast<std::size_t>(n));
  for (int i = n - 1; i >= 1; --i) {
    const int parent = (i - 1) / 2;
    into[static_cast<std::size_t>(parent)].push_back(
        b.add(ep(i), ep(parent), all, true, into[static_cast<std::size_t>(i)]));
  }
  std::vector<TransferId> down(static_cast<std::size_t>(n));
  for (int i = 1; i < n; ++i) {
    const int parent = (i - 1) / 2;
    std::vector<TransferId> deps = into[0];
    if (parent != 0) deps = {down[static_cast<std::size_t>(parent)]};
    down[static_cast<std::size_t>(i)] = b.add(ep(parent), ep(i), all, false, deps);
  }
  return finish(std::move(b));
}

sched::Schedule hierarchical_allreduce(const sched::CollectiveSpec& spec, int per_host) {
  const int n = spec.ranks;
  TT_ASSERT(n % per_host == 0, "ranks %d not a multiple of %d", n, per_host);
  const int hosts = n / per_host;
  const int esize = sched::dtype_size(spec.dtype);
  sched::ScheduleBuilder b(spec, "test-hierarchical");
  const Slice all{Bytes(0), spec.bytes};
  std::vector<std::vector<TransferId>> intra(static_cast<std::size_t>(hosts));
  for (int h = 0; h < hosts; ++h) {
    for (int k = 1; k < per_host; ++k) {
      intra[static_cast<std::size_t>(h)].push_back(
          b.add(ep(h * per_host + k), ep(h * per_host), all, true));
    }
  }
  // Ring allreduce between leaders; a leader's first send waits for its host's sum.
  std::vector<std::vector<TransferId>> got(intra);
  std::vector<std::vector<TransferId>> received(intra);  // everything written into a leader
  for (int s = 0; s < 2 * (hosts - 1); ++s) {
    std::vector<std::vector<TransferId>> next(static_cast<std::size_t>(hosts));
    for (int i = 0; i < hosts; ++i) {
      const int to = (i + 1) % hosts;
      const int blk = ((i - s) % hosts + hosts) % hosts;
      // A leader's send also waits for its host's reductions, which are reduces into the
      // same range as its ring receives: they commute, so nothing else orders them.
      std::vector<TransferId> deps = got[static_cast<std::size_t>(i)];
      deps.insert(deps.end(), intra[static_cast<std::size_t>(i)].begin(),
                  intra[static_cast<std::size_t>(i)].end());
      next[static_cast<std::size_t>(to)] = {
          b.add(ep(i * per_host), ep(to * per_host),
                block(Slice{Bytes(0), spec.bytes}, esize, blk, hosts), s < hosts - 1, deps)};
      received[static_cast<std::size_t>(to)].push_back(next[static_cast<std::size_t>(to)][0]);
    }
    got = std::move(next);
  }
  // A leader's copy is final once every transfer into it completed.
  for (int h = 0; h < hosts; ++h) {
    for (int k = 1; k < per_host; ++k) {
      b.add(ep(h * per_host), ep(h * per_host + k), all, false,
            received[static_cast<std::size_t>(h)]);
    }
  }
  return finish(std::move(b));
}

sched::Schedule broadcast_chain(const sched::CollectiveSpec& spec) {
  const int n = spec.ranks;
  sched::ScheduleBuilder b(spec, "test-broadcast-chain");
  const Slice all{Bytes(0), spec.bytes};
  // t_i: rank i -> i+1. x_i: rank i -> i+2, after t_i (a second copy of the same data).
  // t_{i+1} (rank i+1 -> i+2) depends on x_i only, a transfer rank i+1 takes no part in; its
  // data dependency on t_i (rank i+1's own receive) holds only through x_i, so the executor
  // must project x_i's dependency onto rank i+1 or it would send before receiving.
  TransferId prev_x;
  for (int i = 0; i + 1 < n; ++i) {
    const TransferId t = b.add(ep(i), ep(i + 1), all, false, prev_x);
    prev_x = i + 2 < n ? b.add(ep(i), ep(i + 2), all, false, t) : TransferId();
  }
  return finish(std::move(b));
}

sched::Schedule ring_allgather(const sched::CollectiveSpec& spec) {
  const int n = spec.ranks;
  sched::ScheduleBuilder b(spec, "test-allgather");
  std::vector<TransferId> got(static_cast<std::size_t>(n));
  for (int s = 0; s < n - 1; ++s) {
    std::vector<TransferId> next(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      const int to = (i + 1) % n;
      const int blk = ((i - s) % n + n) % n;
      next[static_cast<std::size_t>(to)] =
          b.add(ep(i), ep(to), block(spec, blk, n), false, got[static_cast<std::size_t>(i)]);
    }
    got = std::move(next);
  }
  return finish(std::move(b));
}

}  // namespace topotune::rt::testing
