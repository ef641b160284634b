#include "tests/gpu/schedule_cases.h"

#include "algorithms/registry.h"
#include "algorithms/schedule/interpreter.h"

namespace topotune::rt::testing {

std::string ScheduleCase::label() const {
  return name + "(channels=" + std::to_string(options.channels) +
         ",chunks=" + std::to_string(options.chunks) +
         ",ps=" + algo::ps_placement_name(options.ps_placement) + ")";
}

std::vector<ScheduleCase> allreduce_cases() {
  std::vector<ScheduleCase> cases;
  auto add = [&](std::string name, int channels, int chunks, algo::PsPlacement ps) {
    algo::AlgorithmOptions o;
    o.channels = channels;
    o.chunks = chunks;
    o.ps_placement = ps;
    cases.push_back({std::move(name), o});
  };
  const algo::PsPlacement colocated = algo::PsPlacement::Colocated;
  add("ring", 1, 1, colocated);
  add("ring", 2, 3, colocated);
  add("tree", 1, 1, colocated);
  add("tree", 2, 2, colocated);
  add("rhd", 1, 1, colocated);
  add("ps", 1, 1, colocated);
  add("ps", 1, 1, algo::PsPlacement::Cpu);
  for (const char* h :
       {"hierarchical:ring", "hierarchical:tree", "hierarchical:rhd", "hierarchical:ps"}) {
    add(h, 1, 1, colocated);
  }
  return cases;
}

Expected<sched::Schedule> make_case_schedule(const ScheduleCase& c, int ranks, int gpus_per_host,
                                             std::int64_t bytes, sched::DataType dtype) {
  TT_TRY(auto algorithm, algo::make_algorithm(c.name, c.options));
  TT_TRY(algo::RankLayout layout, algo::flat_layout(ranks, gpus_per_host));
  sched::CollectiveSpec spec;
  spec.ranks = ranks;
  spec.bytes = Bytes(bytes);
  spec.dtype = dtype;
  TT_TRY(sched::Schedule s, algorithm->generate(spec, layout));
  TT_TRY_VOID(sched::verify(s).context("interpreter"));
  return s;
}

}  // namespace topotune::rt::testing
