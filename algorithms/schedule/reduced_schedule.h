#pragma once
// ReducedSchedule: a schedule given by one representative transfer per orbit of twins.
//
// On a cluster of identical hosts, the ring and the hierarchical(ring) allreduce repeat under a
// shift of every rank by `shift_ranks` (a whole number of hosts, mod the rank count): transfer
// t from rank r has a twin from rank r + shift_ranks of the same size, kind and channel, to the
// shifted receiver, whose dependencies are the twins of t's. A reduced schedule keeps only the
// transfers sent by ranks 0..shift_ranks-1 (the representatives), in the order the full
// schedule has them, with each dependency replaced by its orbit's representative: exactly what
// sim::quotient_by_translation derives from the full schedule, but written by the generator
// (Algorithm::generate_reduced) without ever building the full one. 65,536 ranks of
// hierarchical(ring) are 1.07 G transfers in full and 4.2 M reduced by 32-host racks.
//
// The representatives' receivers are real ranks (a ring step from the last representative
// goes to rank shift_ranks); only senders are restricted. Every orbit has orbit_size =
// ranks / shift_ranks transfers, so the full schedule has orbit_size * size() of them.

#include <cstdint>

#include "algorithms/schedule/schedule.h"

namespace topotune::sched {

struct ReducedSchedule {
  /// The representatives: transfers sent by ranks < shift_ranks, dependencies remapped.
  Schedule representatives;
  /// The translation: ranks r and (r + shift_ranks) mod ranks send twin transfers.
  int shift_ranks = 0;
  /// ranks / shift_ranks (>= 2): the transfers each representative stands for.
  int orbit_size = 1;

  /// Transfers of the full schedule.
  std::int64_t full_size() const {
    return static_cast<std::int64_t>(representatives.size()) * orbit_size;
  }
};

}  // namespace topotune::sched
