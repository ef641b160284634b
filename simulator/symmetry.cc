#include "simulator/symmetry.h"

#include <string>
#include <utility>

#include "core/assert.h"

namespace topotune::sim {
namespace {

constexpr std::uint32_t kNone = ~std::uint32_t{0};

// The orbit numbering: orbit (r mod shift, k) for the k-th transfer sent by rank r. Fails
// (nullopt) unless every rank sends as many transfers as its representative.
struct Numbering {
  std::vector<std::uint32_t> orbit_of;  ///< per transfer
  std::vector<std::uint32_t> rep;       ///< per orbit: its transfer from the first ranks
};

std::optional<Numbering> number_orbits(const sched::Schedule& s, int shift) {
  const auto transfers = s.transfers();
  const auto n = static_cast<std::size_t>(s.num_ranks());
  const auto sh = static_cast<std::size_t>(shift);
  std::vector<std::uint32_t> count(n, 0);
  for (const sched::Transfer& t : transfers) ++count[t.src.index()];
  std::vector<std::uint32_t> next(n, 0);  // next orbit number of each rank's k-th transfer
  std::uint32_t orbits = 0;
  for (std::size_t r = 0; r < sh; ++r) {
    next[r] = orbits;
    orbits += count[r];
  }
  for (std::size_t r = sh; r < n; ++r) {
    if (count[r] != count[r % sh]) return std::nullopt;
    next[r] = next[r % sh];
  }
  Numbering out;
  out.orbit_of.resize(transfers.size());
  out.rep.assign(orbits, kNone);
  for (std::size_t t = 0; t < transfers.size(); ++t) {
    const std::size_t src = transfers[t].src.index();
    const std::uint32_t o = next[src]++;
    out.orbit_of[t] = o;
    if (src < sh) out.rep[o] = static_cast<std::uint32_t>(t);
  }
  return out;
}

// Whether transfer `t` is the shifted twin of its orbit's representative: same size, kind and
// channel, the receiver shifted as the sender is, dependencies in the same orbits (in order).
bool is_twin(const sched::Schedule& s, const Numbering& num, std::size_t t) {
  const auto& x = s.transfers()[t];
  const std::uint32_t r = num.rep[num.orbit_of[t]];
  const auto& y = s.transfers()[r];
  const int n = s.num_ranks();
  const int delta = x.src.value - y.src.value;  // a multiple of the shift, by the numbering
  if (x.slice.size != y.slice.size || x.channel != y.channel || x.reduce != y.reduce) return false;
  if (x.dst.value != (y.dst.value + delta) % n) return false;
  const auto dx = s.deps(TransferId(static_cast<std::int32_t>(t)));
  const auto dy = s.deps(TransferId(static_cast<std::int32_t>(r)));
  if (dx.size() != dy.size()) return false;
  for (std::size_t i = 0; i < dx.size(); ++i) {
    if (num.orbit_of[dx[i].index()] != num.orbit_of[dy[i].index()]) return false;
  }
  return true;
}

// The representatives as a schedule, in their order in the full one. Fails if a
// representative would depend on a later one (the builder keeps dependencies backwards).
std::optional<sched::Schedule> reduced_schedule(const sched::Schedule& s, Numbering& num) {
  std::vector<std::uint32_t> index(num.rep.size(), kNone);
  std::uint32_t next = 0;
  const auto transfers = s.transfers();
  // Representatives in schedule order: a transfer is one when it is its orbit's rep.
  sched::ScheduleBuilder b(s.spec(), s.algorithm());
  b.reserve(num.rep.size(), 0);
  std::vector<TransferId> deps;
  for (std::size_t t = 0; t < transfers.size(); ++t) {
    const std::uint32_t o = num.orbit_of[t];
    if (num.rep[o] != t) continue;
    deps.clear();
    for (TransferId d : s.deps(TransferId(static_cast<std::int32_t>(t)))) {
      const std::uint32_t q = index[num.orbit_of[d.index()]];
      if (q == kNone) return std::nullopt;  // its representative comes later
      deps.push_back(TransferId(static_cast<std::int32_t>(q)));
    }
    index[o] = next++;
    const sched::Transfer& x = transfers[t];
    b.add(x.src, x.dst, x.slice, x.reduce, deps, x.channel);
  }
  for (std::uint32_t& o : num.orbit_of) o = index[o];
  auto built = std::move(b).build();
  TT_ASSERT(built.has_value(), "a reduced schedule failed validation: %s",
            built.error().message.c_str());
  return std::move(*built);
}

}  // namespace

std::optional<Quotient> quotient_by_translation(const sched::Schedule& s,
                                                const NetworkModel& network) {
  const NetworkModel::Translation tr = network.translation();
  const int n = s.num_ranks();
  if (tr.shift_ranks <= 0 || tr.ranks != n || n % tr.shift_ranks != 0 || n / tr.shift_ranks < 2 ||
      s.num_endpoints() != n || s.size() == 0) {
    return std::nullopt;
  }
  auto num = number_orbits(s, tr.shift_ranks);
  if (!num) return std::nullopt;
  for (std::uint32_t r : num->rep)
    if (r == kNone) return std::nullopt;
  for (std::size_t t = 0; t < s.size(); ++t) {
    if (!is_twin(s, *num, t)) return std::nullopt;
  }
  auto reduced = reduced_schedule(s, *num);
  if (!reduced) return std::nullopt;
  return Quotient{sched::ReducedSchedule{std::move(*reduced), tr.shift_ranks, n / tr.shift_ranks},
                  std::move(num->orbit_of)};
}

Expected<void> check_reduced(const sched::ReducedSchedule& r, const NetworkModel& network) {
  const NetworkModel::Translation tr = network.translation();
  const sched::Schedule& s = r.representatives;
  const int n = s.num_ranks();
  if (tr.shift_ranks != r.shift_ranks || tr.ranks != n || r.shift_ranks <= 0 ||
      r.orbit_size * r.shift_ranks != n || r.orbit_size < 2) {
    return fail(Errc::InvalidArgument,
                "a schedule reduced by a shift of " + std::to_string(r.shift_ranks) + " of " +
                    std::to_string(n) + " ranks (orbits of " + std::to_string(r.orbit_size) +
                    ") on a network whose translation shifts " + std::to_string(tr.shift_ranks) +
                    " of " + std::to_string(tr.ranks) + " ranks");
  }
  if (s.num_endpoints() != n) {
    return fail(Errc::InvalidArgument, "a reduced schedule with endpoints that are not ranks");
  }
  for (const sched::Transfer& t : s.transfers()) {
    if (t.src.value >= r.shift_ranks) {
      return fail(Errc::InvalidArgument,
                  "a reduced schedule with a transfer from rank " + std::to_string(t.src.value) +
                      ", not a representative (ranks below " + std::to_string(r.shift_ranks) + ")");
    }
  }
  return {};
}

topo::Route QuotientNetwork::route(NodeId from, NodeId to, int channel) const {
  topo::Route r = base_.route(from, to, channel);
  for (int i = 0; i < r.size; ++i) {
    r.links[static_cast<std::size_t>(i)] = base_.link_orbit(r.links[static_cast<std::size_t>(i)]);
  }
  return r;
}

SimResult expand_links(SimResult reduced, int orbit_size, const NetworkModel& network) {
  SimResult out = std::move(reduced);
  out.symmetry = orbit_size;
  const std::vector<LinkStats> links = std::move(out.links);
  out.links.resize(links.size());
  for (std::size_t l = 0; l < links.size(); ++l) {
    out.links[l] = links[network.link_orbit(LinkId(static_cast<std::int32_t>(l))).index()];
  }
  return out;
}

void expand_transfers(SimResult& result, const Quotient& q) {
  if (result.transfers.empty()) return;
  std::vector<TransferTiming> reps = std::move(result.transfers);
  result.transfers.resize(q.orbit_of.size());
  for (std::size_t t = 0; t < q.orbit_of.size(); ++t) result.transfers[t] = reps[q.orbit_of[t]];
}

}  // namespace topotune::sim
