// SchedulePredictor: measured rows of topotune's algorithms are predicted with the schedule
// `measure` ran on the flow simulator; `mpi` with the Open MPI model. Expectations are computed
// independently here from the registry and the simulator, not copied from the predictor.

#include "timing/schedule_predictor.h"

#include <gtest/gtest.h>

#include "algorithms/bruck_allgather.h"
#include "algorithms/neighbor_exchange_allgather.h"
#include "algorithms/registry.h"
#include "simulator/simulator.h"

namespace topotune::tune {
namespace {

sched::CollectiveSpec allreduce(int ranks, std::int64_t bytes) {
  sched::CollectiveSpec s;
  s.ranks = ranks;
  s.bytes = Bytes(bytes);
  return s;
}

Seconds simulate(const topo::Topology& t, const std::string& name, algo::AlgorithmOptions o,
                 const algo::RankLayout& layout, const sched::CollectiveSpec& spec) {
  const auto a = algo::make_algorithm(name, o, spec.collective).value();
  const sched::Schedule s = a->generate(spec, layout).value();
  return sim::Simulator(t).run(s).value().makespan;
}

TEST(SchedulePredictor, TopotuneAlgorithmsAreTheirScheduleOnTheSimulator) {
  const topo::ClusterSpec spec = topo::make_cluster_spec("p4d.24xlarge", 2).value();
  const SchedulePredictor p = SchedulePredictor::create(spec, 2, 1).value();
  const topo::Topology t = topo::build_topology(spec).value();
  const algo::RankLayout layout = algo::layout_from_topology(t, 2).value();
  const sched::CollectiveSpec s = allreduce(16, 3 << 20);
  algo::AlgorithmOptions o;
  o.channels = 2;
  EXPECT_EQ(p.time("ring", s).value().value, simulate(t, "ring", o, layout, s).value);
  EXPECT_EQ(p.time("hierarchical:tree", s).value().value,
            simulate(t, "hierarchical:tree", o, layout, s).value);
  algo::AlgorithmOptions cpu = o;
  cpu.ps_placement = algo::PsPlacement::Cpu;
  EXPECT_EQ(p.time("ps:cpu", s).value().value, simulate(t, "ps", cpu, layout, s).value);
  // The placement matters (else the check above would not test the parsing of "ps:cpu").
  EXPECT_NE(p.time("ps:cpu", s).value().value, p.time("ps", s).value().value);
}

TEST(SchedulePredictor, PlannerLabelsUseTheirOwnChannelCount) {
  // "ring/ch2" is the planner's ring on 2 channels: the registry's ring with channels = 2 on
  // a 2-channel layout, whatever channel count the predictor was created with.
  const topo::ClusterSpec spec = topo::make_cluster_spec("p4d.24xlarge", 2).value();
  const SchedulePredictor p = SchedulePredictor::create(spec, 1, 1).value();
  const algo::RankLayout two = algo::layout_from_topology(p.topology(), 2).value();
  const sched::CollectiveSpec s = allreduce(16, 8 << 20);
  algo::AlgorithmOptions o;
  o.channels = 2;
  EXPECT_EQ(p.time("ring/ch2", s).value().value, simulate(p.topology(), "ring", o, two, s).value);
  EXPECT_EQ(measured_algorithm("ring/ch2").value().options.channels, 2);
}

TEST(SchedulePredictor, MpiIsRhdOverTheBitReversedRankOrder) {
  // One g4dn.12xlarge: 4 ranks. Bit reversal over 2 bits maps positions 0,1,2,3 to ranks
  // 0 (00->00), 2 (01->10), 1 (10->01), 3 (11->11).
  const topo::ClusterSpec spec = topo::make_cluster_spec("g4dn.12xlarge", 1).value();
  const SchedulePredictor p = SchedulePredictor::create(spec).value();
  ASSERT_EQ(p.ranks(), 4);
  algo::RankLayout order = p.layout();
  order.rings = {{RankId(0), RankId(2), RankId(1), RankId(3)}};
  const sched::CollectiveSpec s = allreduce(4, 1 << 20);
  EXPECT_EQ(p.time("mpi", s).value().value, simulate(p.topology(), "rhd", {}, order, s).value);
  EXPECT_EQ(measured_layout(measured_algorithm("mpi").value(), p.layout(), s.collective).rings,
            order.rings);
}

// Reduce-scatter and allgather: what Open MPI 4.1.4's coll/tuned picks, in rank order. One
// g4dn.12xlarge (4 ranks) at 16 MiB: ring reduce-scatter (recursive halving, topotune's rhd,
// below 256 KiB), neighbor-exchange allgather (4 MiB per rank); at 256 KiB the allgather is
// Bruck's; at 512 bytes it is gatherv + broadcast, which has no schedule here: Unsupported,
// naming it.
TEST(SchedulePredictor, MpiReduceScatterAndAllgatherAreOpenMpisChoice) {
  const topo::ClusterSpec spec = topo::make_cluster_spec("g4dn.12xlarge", 1).value();
  const SchedulePredictor p = SchedulePredictor::create(spec).value();
  algo::RankLayout order = p.layout();
  order.rings = {{RankId(0), RankId(1), RankId(2), RankId(3)}};
  sched::CollectiveSpec rs = allreduce(4, 16 << 20);
  rs.collective = sched::Collective::ReduceScatter;
  EXPECT_EQ(p.time("mpi", rs).value().value, simulate(p.topology(), "ring", {}, order, rs).value);
  sched::CollectiveSpec small = rs;  // below 256 KiB: recursive halving, topotune's rhd
  small.bytes = Bytes(64 << 10);
  EXPECT_EQ(p.time("mpi", small).value().value,
            simulate(p.topology(), "rhd", {}, p.layout(), small).value);
  EXPECT_EQ(open_mpi_model_name(small), "recursive halving (Open MPI model)");
  sched::CollectiveSpec ag = rs;
  ag.collective = sched::Collective::Allgather;
  const sim::SimResult ne = sim::Simulator(p.topology())
                                .run(algo::NeighborExchangeAllgather(algo::AlgorithmOptions{})
                                         .generate(ag, p.layout())
                                         .value())
                                .value();
  EXPECT_EQ(p.time("mpi", ag).value().value, ne.makespan.value);
  EXPECT_EQ(open_mpi_model_name(ag), "neighbor exchange (Open MPI model)");
  ag.bytes = Bytes(256 << 10);  // 64 KiB per rank: Bruck's
  const sim::SimResult bruck =
      sim::Simulator(p.topology())
          .run(algo::BruckAllgather(algo::AlgorithmOptions{}).generate(ag, p.layout()).value())
          .value();
  EXPECT_EQ(p.time("mpi", ag).value().value, bruck.makespan.value);
  EXPECT_EQ(open_mpi_model_name(ag), "bruck (Open MPI model)");
  ag.bytes = Bytes(512);  // 128 bytes per rank: gatherv + broadcast, no schedule here
  const auto gatherv = p.time("mpi", ag);
  ASSERT_FALSE(gatherv);
  EXPECT_EQ(gatherv.error().code, Errc::Unsupported);
  EXPECT_NE(gatherv.error().message.find("default"), std::string::npos) << gatherv.error().message;
}

TEST(SchedulePredictor, RefusesWhatItDoesNotModel) {
  EXPECT_FALSE(measured_algorithm("nccl").has_value());  // the NCCL predictor's rows
  const auto unknown = measured_algorithm("rign");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().code, Errc::NotFound);
  const MeasuredAlgorithm mpi = measured_algorithm("mpi").value();
  sched::CollectiveSpec bcast = allreduce(8, 4096);
  bcast.collective = sched::Collective::Broadcast;
  EXPECT_FALSE(make_measured_algorithm(mpi, bcast).has_value());
  EXPECT_FALSE(measured_algorithm("ps:disk").has_value());
}

}  // namespace
}  // namespace topotune::tune
