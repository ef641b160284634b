// The cases calibrate fits from a measured run (calibration/calibration_cases.h): rows split by
// the model that predicts them, each case checked against the system or cluster it runs on.
#include "calibration/calibration_cases.h"

#include <gtest/gtest.h>

namespace topotune::tune {
namespace {

rt::Measurement run(int ranks, std::initializer_list<const char*> algorithms) {
  rt::Measurement r;
  r.collective = sched::Collective::Allreduce;
  r.ranks = ranks;
  r.nccl_version = "2.21.5";
  r.channels = 2;
  r.chunks = 3;
  std::int64_t bytes = 1 << 20;
  for (const char* a : algorithms) {
    rt::MeasurementRow row;
    row.algorithm = a;
    row.bytes = bytes;
    row.time_us = 100.0 + bytes / 1e6;
    r.rows.push_back(row);
    bytes *= 2;
  }
  return r;
}

TEST(CalibrationCases, RowsSplitByTheirModelInOrder) {
  const rt::Measurement r = run(8, {"nccl", "ring", "mpi", "nccl", "hierarchical:tree", "ps:cpu"});
  const auto [nccl, links] = split_by_model(r);
  ASSERT_EQ(nccl.rows.size(), 2u);
  EXPECT_EQ(nccl.rows[0].bytes, 1 << 20);
  EXPECT_EQ(nccl.rows[1].bytes, 8 << 20);
  ASSERT_EQ(links.rows.size(), 4u);
  EXPECT_EQ(links.rows[0].algorithm, "ring");
  EXPECT_EQ(links.rows[1].algorithm, "mpi");  // Open MPI's model runs on the link classes
  EXPECT_EQ(links.rows[3].algorithm, "ps:cpu");
  for (const rt::Measurement* half : {&nccl, &links}) {  // the run's header stays with each
    EXPECT_EQ(half->ranks, 8);
    EXPECT_EQ(half->channels, 2);
    EXPECT_EQ(half->chunks, 3);
    EXPECT_EQ(half->nccl_version.value_or(""), "2.21.5");
  }
}

TEST(CalibrationCases, AnNcclCaseIsTheRunOnItsSystem) {
  const auto spec = topo::make_cluster_spec("dgx-a100", 1, topo::Placement::Cluster);
  ASSERT_TRUE(spec) << spec.error().message;
  const auto system = algo::nccl_system_from_cluster(*spec);
  ASSERT_TRUE(system) << system.error().message;
  const auto c = nccl_calibration_case("a.log", run(8, {"nccl", "nccl"}), *system);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->name, "a.log");
  EXPECT_EQ(c->system.ranks(), 8);
  ASSERT_EQ(c->points.size(), 2u);
  EXPECT_EQ(c->points[1].bytes, Bytes(2 << 20));
  EXPECT_DOUBLE_EQ(c->points[1].time_us, 100.0 + (2 << 20) / 1e6);
  const auto wrong = nccl_calibration_case("a.log", run(16, {"nccl"}), *system);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().message, "a.log: 16 ranks in the log, 8 in " + system->instance);
}

TEST(CalibrationCases, ALinkCaseIsTheRunOnItsCluster) {
  const auto spec = topo::make_cluster_spec("g4dn.12xlarge", 2, topo::Placement::Cluster);
  ASSERT_TRUE(spec) << spec.error().message;
  const rt::Measurement r = run(8, {"ring", "rhd"});
  const auto c = link_calibration_case("m.json", r, *spec);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->cluster.hosts, 2);
  EXPECT_EQ(c->channels, 2);
  EXPECT_EQ(c->chunks, 3);
  ASSERT_EQ(c->points.size(), 2u);
  EXPECT_EQ(c->points[1].algorithm, "rhd");
  EXPECT_EQ(c->points[1].bytes, Bytes(2 << 20));
  EXPECT_DOUBLE_EQ(c->points[1].time_us, 100.0 + (2 << 20) / 1e6);
  const auto wrong = link_calibration_case("m.json", run(4, {"ring"}), *spec);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().message, "m.json: 4 ranks measured, 8 in g4dn.12xlarge");
}

TEST(CalibrationCases, ALinkCaseWithoutRecordedOptionsRunsOneChannelAndChunk) {
  const auto spec = topo::make_cluster_spec("g4dn.12xlarge", 2, topo::Placement::Cluster);
  ASSERT_TRUE(spec) << spec.error().message;
  rt::Measurement r = run(8, {"ring"});
  r.channels.reset();  // an nccl-tests log or an older measurement records neither
  r.chunks.reset();
  const auto c = link_calibration_case("m.json", r, *spec);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->channels, 1);
  EXPECT_EQ(c->chunks, 1);
}

}  // namespace
}  // namespace topotune::tune
