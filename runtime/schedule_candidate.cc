#include "runtime/schedule_candidate.h"

#include <memory>

#include "runtime/executor.h"
#include "runtime/host_reducer.h"

namespace topotune::rt {
namespace {

/// What the candidate's closure keeps alive between runs.
struct ScheduleRun {
  explicit ScheduleRun(sched::Schedule s) : schedule(std::move(s)) {}
  sched::Schedule schedule;
  Executor executor;
  HostReducer reducer;
};

}  // namespace

Expected<Candidate> schedule_candidate(std::string name, sched::Schedule schedule,
                                       Transport& transport) {
  auto st = std::make_shared<ScheduleRun>(std::move(schedule));
  TT_TRY_VOID(st->executor.prepare(st->schedule, transport.rank(), transport.max_tag()));
  return Candidate{std::move(name), [st, &transport](BufferView b) {
                     return st->executor.run(st->schedule, transport.rank(), b, transport,
                                             st->reducer);
                   }};
}

}  // namespace topotune::rt
