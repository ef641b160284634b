#include "algorithms/schedule/interpreter.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "algorithms/schedule/ancestor_chains.h"
#include "algorithms/schedule/rank_set_pool.h"
#include "algorithms/schedule/validate.h"

namespace topotune::sched {
namespace {

// One run of bytes of one endpoint's buffer with the same contents and the same access history.
// The history is what race detection needs: the last write(s) and the reads since then. A group
// of reduces into the same bytes may run concurrently; each member must follow `group_base`.
struct Segment {
  int set = RankSetPool::kEmpty;
  bool reduce_group = false;
  std::vector<std::int32_t> writers;
  std::vector<std::int32_t> readers;
  std::vector<std::int32_t> group_base;
};
using SegMap = std::map<std::int64_t, Segment>;  // key: first byte; a segment ends at the next key

enum class Kind { Read, Copy, Reduce };
const char* kind_verb(Kind k) {
  return k == Kind::Read ? "reads" : k == Kind::Copy ? "writes" : "reduces into";
}

// A transfer that must be an ancestor of the current one, and why (for the message).
struct Need {
  std::int32_t id;
  int endpoint;
  std::int64_t lo, hi;
  Kind mine;
};

std::string range(std::int64_t lo, std::int64_t hi) {
  return "bytes [" + std::to_string(lo) + ", " + std::to_string(hi) + ")";
}

class Interpreter {
 public:
  explicit Interpreter(const Schedule& s)
      : s_(s),
        chains_(s),
        pool_(s.num_ranks()),
        state_(static_cast<std::size_t>(s.num_endpoints())),
        dep_mark_(s.size(), -1),
        visit_mark_(s.size(), -1),
        want_mark_(s.size(), -1),
        need_mark_(s.size(), -1) {}

  Expected<void> run() {
    init_state();
    for (std::size_t i = 0; i < s_.size(); ++i) TT_TRY_VOID(step(static_cast<std::int32_t>(i)));
    return check_end_state();
  }

 private:
  std::string endpoint_name(int e) const {
    if (e < s_.num_ranks()) return "rank " + std::to_string(e);
    const Endpoint ep = s_.endpoint(EndpointId(e));
    return "endpoint " + std::to_string(e) + " (cpu of host " + std::to_string(ep.host) + ")";
  }
  std::string transfer_name(std::int32_t id) const {
    const Transfer& t = s_.transfer(TransferId(id));
    return "transfer " + std::to_string(id) + " (" + std::to_string(t.src.value) + " -> " +
           std::to_string(t.dst.value) + ", " + range(t.slice.offset.value, t.slice.end().value) +
           (t.reduce ? ", reduce)" : ", copy)");
  }

  void put(int e, std::int64_t lo, std::int64_t hi, int set) {
    if (lo < hi) state_[static_cast<std::size_t>(e)][lo].set = set;
  }

  void init_state() {
    const CollectiveSpec& spec = s_.spec();
    const std::int64_t total = spec.bytes.value;
    for (int e = 0; e < s_.num_endpoints(); ++e) put(e, 0, total, RankSetPool::kEmpty);
    for (int r = 0; r < s_.num_ranks(); ++r) {
      switch (spec.collective) {
        case Collective::Allreduce:
        case Collective::ReduceScatter:
          put(r, 0, total, pool_.singleton(r));
          break;
        case Collective::Allgather: {
          const Slice b = block(spec, r, s_.num_ranks());
          put(r, b.offset.value, b.end().value, pool_.singleton(r));
          put(r, b.end().value, total, RankSetPool::kEmpty);
          break;
        }
        case Collective::Broadcast:
          if (r == spec.root.value) put(r, 0, total, pool_.singleton(r));
          break;
      }
    }
  }

  // Makes `x` a segment boundary of `m` and returns the segment starting there (end() at the end).
  SegMap::iterator split(SegMap& m, std::int64_t x) {
    if (x >= s_.spec().bytes.value) return m.end();
    auto it = m.upper_bound(x);
    --it;
    if (it->first == x) return it;
    return m.emplace_hint(std::next(it), x, it->second);
  }

  void need(std::int32_t id, int e, std::int64_t lo, std::int64_t hi, Kind mine,
            const std::vector<std::int32_t>& ids) {
    for (std::int32_t a : ids) {
      if (need_mark_[static_cast<std::size_t>(a)] == id) continue;
      need_mark_[static_cast<std::size_t>(a)] = id;
      needs_.push_back(Need{a, e, lo, hi, mine});
    }
  }

  Expected<void> step(std::int32_t id);
  Expected<void> gather_reads(std::int32_t id, const Transfer& t);
  Expected<void> gather_writes(std::int32_t id, const Transfer& t);
  void apply(std::int32_t id, const Transfer& t);
  Expected<void> check_order(std::int32_t id);
  Unexpected race_error(std::int32_t id) const;
  int claim(std::int32_t id, std::int32_t u);
  Expected<void> check_range(int rank, Slice sl, int want, const char* what);
  Expected<void> check_end_state();

  const Schedule& s_;
  AncestorChains chains_;
  RankSetPool pool_;
  std::vector<SegMap> state_;
  std::vector<std::int32_t> dep_mark_, visit_mark_, want_mark_, need_mark_;
  std::vector<Need> needs_;
  std::vector<std::int32_t> stack_;
  std::vector<SegMap::iterator> src_segs_;
  std::vector<std::pair<SegMap::iterator, int>> dst_segs_;  // segment, incoming set
};

Expected<void> Interpreter::step(std::int32_t id) {
  const Transfer& t = s_.transfer(TransferId(id));
  if (t.slice.empty()) return {};
  needs_.clear();
  src_segs_.clear();
  dst_segs_.clear();
  TT_TRY_VOID(gather_reads(id, t));
  TT_TRY_VOID(gather_writes(id, t));
  TT_TRY_VOID(check_order(id));
  apply(id, t);
  return {};
}

// The source segments the transfer reads: each must hold data, and follow its last writers.
Expected<void> Interpreter::gather_reads(std::int32_t id, const Transfer& t) {
  const std::int64_t x = t.slice.offset.value, y = t.slice.end().value;
  SegMap& src = state_[t.src.index()];
  const auto src_end = split(src, y);
  for (auto it = split(src, x); it != src_end; ++it) {
    const std::int64_t lo = it->first, hi = std::next(it) == src.end() ? y : std::next(it)->first;
    if (it->second.set == RankSetPool::kEmpty) {
      return fail(Errc::InvalidSchedule, transfer_name(id) + " reads " + range(lo, hi) + " of " +
                                             endpoint_name(t.src.value) +
                                             ", which hold no data (nothing was delivered there)");
    }
    need(id, t.src.value, lo, hi, Kind::Read, it->second.writers);
    src_segs_.push_back(it);
  }
  return {};
}

// The destination segments under each source piece: a reduce must not count a rank twice; a
// write follows the readers since the last write (or that write); a reduce joining a group of
// concurrent reduces follows what the group follows.
Expected<void> Interpreter::gather_writes(std::int32_t id, const Transfer& t) {
  SegMap& dst = state_[t.dst.index()];
  const Kind k = t.reduce ? Kind::Reduce : Kind::Copy;
  for (std::size_t p = 0; p < src_segs_.size(); ++p) {
    const std::int64_t lo = src_segs_[p]->first;
    const std::int64_t hi =
        p + 1 < src_segs_.size() ? src_segs_[p + 1]->first : t.slice.end().value;
    const int in = src_segs_[p]->second.set;
    const auto dst_end = split(dst, hi);
    for (auto it = split(dst, lo); it != dst_end; ++it) {
      Segment& seg = it->second;
      const std::int64_t a = it->first, b = std::next(it) == dst.end() ? hi : std::next(it)->first;
      if (t.reduce && !pool_.disjoint(seg.set, in)) {
        return fail(Errc::InvalidSchedule, transfer_name(id) + " reduces " + range(a, b) +
                                               " holding " + pool_.describe(in) + " into " +
                                               endpoint_name(t.dst.value) +
                                               ", which already holds " + pool_.describe(seg.set) +
                                               ": a contribution would be counted twice");
      }
      if (k == Kind::Reduce && seg.reduce_group && seg.readers.empty()) {
        need(id, t.dst.value, a, b, k, seg.group_base);
      } else {
        need(id, t.dst.value, a, b, k, seg.readers.empty() ? seg.writers : seg.readers);
      }
      dst_segs_.emplace_back(it, in);
    }
  }
  return {};
}

void Interpreter::apply(std::int32_t id, const Transfer& t) {
  for (auto it : src_segs_) it->second.readers.push_back(id);
  for (auto& [it, in] : dst_segs_) {
    Segment& seg = it->second;
    if (!t.reduce) {
      seg.set = in;
      seg.writers.assign(1, id);
      seg.readers.clear();
      seg.reduce_group = false;
    } else if (seg.reduce_group && seg.readers.empty()) {
      seg.set = pool_.unite(seg.set, in);
      seg.writers.push_back(id);
    } else {
      seg.set = pool_.unite(seg.set, in);
      seg.group_base = seg.readers.empty() ? seg.writers : seg.readers;
      seg.writers.assign(1, id);
      seg.readers.clear();
      seg.reduce_group = true;
    }
  }
}

// Every transfer in needs_ must be an ancestor of `id`: a direct dependency, or on the data or
// sender chain of one (AncestorChains, O(log) each), or else found by one backwards search from
// `id` that never goes below the smallest id still wanted (ids are a topological order, so
// nothing below it can lead to it).
Expected<void> Interpreter::check_order(std::int32_t id) {
  if (needs_.empty()) return {};
  const auto deps = s_.deps(TransferId(id));
  for (TransferId d : deps) dep_mark_[d.index()] = id;
  std::int32_t lo = id;
  int wanted = 0;
  for (const Need& n : needs_) {
    if (dep_mark_[static_cast<std::size_t>(n.id)] == id) continue;
    bool chained = false;
    for (TransferId d : deps) {
      if (d.value > n.id && chains_.on_chain(n.id, d.value)) {
        chained = true;
        break;
      }
    }
    if (chained) continue;
    want_mark_[static_cast<std::size_t>(n.id)] = id;
    lo = std::min(lo, n.id);
    ++wanted;
  }
  if (wanted == 0) return {};
  // Breadth-first, so that the nearest transfer whose chains hold a wanted one is met early.
  stack_.clear();
  stack_.push_back(id);
  int found = 0;
  const auto visit = [&](std::int32_t d) {
    const auto di = static_cast<std::size_t>(d);
    if (d < lo || visit_mark_[di] == id) return;
    visit_mark_[di] = id;
    found += claim(id, d);
    stack_.push_back(d);
  };
  for (std::size_t head = 0; head < stack_.size() && found < wanted; ++head) {
    const std::int32_t u = stack_[head];
    for (TransferId d : s_.deps(TransferId(u))) visit(d.value);
    visit(chains_.data_jump(u));  // shortcuts down long chains (ancestors too)
    visit(chains_.sender_jump(u));
  }
  if (found == wanted) return {};
  return race_error(id);
}

// Marks as found every wanted transfer that `u` (an ancestor of `id`) is or has on its chains.
int Interpreter::claim(std::int32_t id, std::int32_t u) {
  int n = 0;
  for (const Need& need : needs_) {
    const auto ni = static_cast<std::size_t>(need.id);
    if (want_mark_[ni] != id || need.id > u || !chains_.on_chain(need.id, u)) continue;
    want_mark_[ni] = -1;  // found: no longer wanted
    ++n;
  }
  return n;
}

// The first wanted ancestor the search did not reach, as a message.
Unexpected Interpreter::race_error(std::int32_t id) const {
  for (const Need& n : needs_) {
    const std::size_t ni = static_cast<std::size_t>(n.id);
    if (want_mark_[ni] != id) continue;
    const Transfer& other = s_.transfer(TransferId(n.id));
    const bool other_writes = other.dst.value == n.endpoint;
    return fail(Errc::InvalidSchedule,
                "race: " + transfer_name(n.id) + " " +
                    (other_writes ? (other.reduce ? "reduces into" : "writes") : "reads") + " " +
                    range(n.lo, n.hi) + " of " + endpoint_name(n.endpoint) + " and " +
                    transfer_name(id) + " " + kind_verb(n.mine) +
                    " them, but does not depend on it (directly or transitively)");
  }
  return fail(Errc::Internal, "race detection lost track of transfer " + std::to_string(id));
}

Expected<void> Interpreter::check_range(int rank, Slice sl, int want, const char* what) {
  if (sl.empty()) return {};
  const SegMap& m = state_[static_cast<std::size_t>(rank)];
  auto it = std::prev(m.upper_bound(sl.offset.value));
  for (; it != m.end() && it->first < sl.end().value; ++it) {
    if (it->second.set == want) continue;
    const std::int64_t lo = std::max(it->first, sl.offset.value);
    const std::int64_t next =
        std::next(it) == m.end() ? s_.spec().bytes.value : std::next(it)->first;
    const std::int64_t hi = std::min(next, sl.end().value);
    return fail(Errc::InvalidSchedule, std::string(collective_name(s_.spec().collective)) +
                                           " end state: rank " + std::to_string(rank) + " " +
                                           range(lo, hi) + " holds " +
                                           pool_.describe(it->second.set) + " but must hold " +
                                           what + " " + pool_.describe(want));
  }
  return {};
}

Expected<void> Interpreter::check_end_state() {
  const CollectiveSpec& spec = s_.spec();
  const int n = s_.num_ranks();
  const Slice whole{Bytes(0), spec.bytes};
  for (int r = 0; r < n; ++r) {
    switch (spec.collective) {
      case Collective::Allreduce:
        TT_TRY_VOID(check_range(r, whole, pool_.full(), "the sum of all ranks"));
        break;
      case Collective::ReduceScatter:
        TT_TRY_VOID(
            check_range(r, block(spec, r, n), pool_.full(), "(its block) the sum of all ranks"));
        break;
      case Collective::Allgather:
        for (int j = 0; j < n; ++j) {
          TT_TRY_VOID(check_range(r, block(spec, j, n), pool_.singleton(j), "the block of rank"));
        }
        break;
      case Collective::Broadcast:
        TT_TRY_VOID(check_range(r, whole, pool_.singleton(spec.root.value), "the root's data"));
        break;
    }
  }
  return {};
}

}  // namespace

Expected<void> verify(const Schedule& s) {
  TT_TRY_VOID(validate(s));
  return Interpreter(s).run();
}

}  // namespace topotune::sched
