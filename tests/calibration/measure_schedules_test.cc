// The layout `topotune measure` checks against the ranks mpirun launched, and the schedules it
// generates for it (calibration/measure_schedules.h).
#include "calibration/measure_schedules.h"

#include <gtest/gtest.h>

#include "algorithms/schedule/interpreter.h"

namespace topotune::tune {
namespace {

std::vector<std::string> launched(std::initializer_list<std::pair<const char*, int>> hosts) {
  std::vector<std::string> out;
  for (const auto& [name, ranks] : hosts) out.insert(out.end(), ranks, name);
  return out;
}

topo::ClusterSpec p4d(int hosts) {
  return *topo::make_cluster_spec("p4d.24xlarge", hosts, topo::Placement::Cluster);
}

TEST(MeasureLayout, RanksPerNodeZeroMeansAsLaunched) {
  const auto l = make_measure_layout(std::nullopt, "", 0, launched({{"a", 3}, {"b", 3}}));
  ASSERT_TRUE(l) << l.error().message;
  EXPECT_EQ(l->ranks_per_node, 3);
  EXPECT_EQ(l->hosts, 2);
  EXPECT_FALSE(l->cluster);
  // Given, it wins over the host names (one machine emulating two hosts).
  const auto given = make_measure_layout(std::nullopt, "", 2, launched({{"a", 4}}));
  ASSERT_TRUE(given) << given.error().message;
  EXPECT_EQ(given->hosts, 2);
}

TEST(MeasureLayout, RanksMustFillWholeHosts) {
  const auto l = make_measure_layout(std::nullopt, "", 3, launched({{"a", 4}}));
  ASSERT_FALSE(l);
  EXPECT_EQ(l.error().message, "4 ranks do not fill hosts of 3 ranks");
  // Uneven hosts as launched: 5 ranks on 2 names is 2 per host, which 5 does not fill.
  EXPECT_FALSE(make_measure_layout(std::nullopt, "", 0, launched({{"a", 3}, {"b", 2}})));
}

TEST(MeasureLayout, TheClusterDecidesAndMustMatchTheLaunch) {
  const auto l = make_measure_layout(p4d(2), "c.json", 0, launched({{"a", 16}}));
  ASSERT_TRUE(l) << l.error().message;
  EXPECT_EQ(l->ranks_per_node, 8);
  EXPECT_EQ(l->hosts, 2);
  ASSERT_TRUE(l->cluster);
  const auto few = make_measure_layout(p4d(2), "c.json", 0, launched({{"a", 8}}));
  ASSERT_FALSE(few);
  EXPECT_EQ(few.error().message, "c.json describes 2 hosts x 8 ranks, but 8 ranks were launched");
  const auto rpn = make_measure_layout(p4d(2), "c.json", 4, launched({{"a", 16}}));
  ASSERT_FALSE(rpn);
  EXPECT_EQ(rpn.error().message, "--ranks-per-node disagrees with c.json");
  EXPECT_TRUE(make_measure_layout(p4d(2), "c.json", 8, launched({{"a", 8}, {"b", 8}})));
}

sched::CollectiveSpec allreduce(int ranks, std::int64_t bytes) {
  sched::CollectiveSpec s;
  s.ranks = ranks;
  s.bytes = Bytes(bytes);
  return s;
}

// Every name measure accepts generates a schedule that allreduces (the interpreter proves it),
// on a flat layout and on a cluster's topology.
TEST(MeasureSchedules, EveryMeasuredNameGeneratesAProvenSchedule) {
  MeasureLayout flat;
  flat.ranks_per_node = 4;
  flat.hosts = 2;
  MeasureLayout cluster = *make_measure_layout(p4d(2), "c.json", 0, launched({{"a", 16}}));
  for (const char* name : {"ring", "dbtree", "rhd", "ps:cpu", "ps:colocated", "hierarchical:tree",
                           "hierarchical(rhd)", "ps(k=2)", "ring/ch4"}) {
    for (const MeasureLayout* l : {&flat, &cluster}) {
      const int ranks = l->ranks_per_node * l->hosts;
      const auto s = make_measure_schedule(name, allreduce(ranks, 1 << 20), *l);
      ASSERT_TRUE(s) << name << ": " << s.error().message;
      EXPECT_EQ(s->num_ranks(), ranks) << name;
      EXPECT_TRUE(sched::verify(*s)) << name;
    }
  }
}

// On a cluster the ring follows its topology (p3's NVLink cube mesh: 0 -> 3 -> 2 -> 1 -> 5 ...),
// on a flat layout the rank order.
TEST(MeasureSchedules, AClusterLayoutIsTheTopologys) {
  MeasureLayout mesh =
      *make_measure_layout(*topo::make_cluster_spec("p3.16xlarge", 1, topo::Placement::Cluster),
                           "p3.json", 0, launched({{"a", 8}}));
  const auto on_mesh = make_measure_schedule("ring", allreduce(8, 1024), mesh);
  ASSERT_TRUE(on_mesh) << on_mesh.error().message;
  EXPECT_EQ(on_mesh->transfers()[0].dst.value, 3);
  MeasureLayout flat;
  flat.ranks_per_node = 8;
  const auto on_flat = make_measure_schedule("ring", allreduce(8, 1024), flat);
  ASSERT_TRUE(on_flat) << on_flat.error().message;
  EXPECT_EQ(on_flat->transfers()[0].dst.value, 1);
}

// The layout's --channels and --chunks reach the generator; a planner label's own channel
// count wins for that label.
TEST(MeasureSchedules, LayoutOptionsReachTheGenerator) {
  MeasureLayout l;
  l.ranks_per_node = 2;
  l.hosts = 2;
  l.channels = 2;
  l.chunks = 3;
  const auto ring = make_measure_schedule("ring", allreduce(4, 1 << 20), l);
  ASSERT_TRUE(ring) << ring.error().message;
  EXPECT_EQ(ring->algorithm(), "ring(channels=2,chunks=3)");
  const auto label = make_measure_schedule("ring/ch4", allreduce(4, 1 << 20), l);
  ASSERT_TRUE(label) << label.error().message;
  EXPECT_NE(label->algorithm().find("channels=4"), std::string::npos) << label->algorithm();
}

TEST(MeasureSchedules, UnknownNamesAreErrorsThatNameThem) {
  MeasureLayout l;
  l.ranks_per_node = 2;
  l.hosts = 2;
  const auto s = make_measure_schedule("rong", allreduce(4, 1 << 20), l);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("rong"), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace topotune::tune
