// Validation's comparison: each row predicted by its own algorithm's model, busbw errors as
// nccl-tests defines them, the simulator built only when a row needs it.

#include "calibration/validation.h"

#include <gtest/gtest.h>

#include "algorithms/nccl/nccl_params.h"
#include "algorithms/nccl/nccl_system.h"

namespace topotune::tune {
namespace {

struct Fixture {
  topo::ClusterSpec cluster;
  std::optional<algo::NcclPredictor> nccl;
  int budget_calls = 0;

  Fixture() {
    cluster = *topo::make_cluster_spec("p4d.24xlarge", 1);
    nccl.emplace(*algo::nccl_system_from_cluster(cluster), algo::default_params(),
                 algo::NcclOptions{});
  }
  RowPredictor predictor() {
    return RowPredictor(*nccl, cluster, 1, 1, [this]() -> Expected<algo::MemoryBudget> {
      ++budget_calls;
      return algo::MemoryBudget{};
    });
  }
  double predicted_us(const std::string& algorithm, Bytes size) {
    RowPredictor p = predictor();
    sched::CollectiveSpec spec;
    spec.ranks = 8;
    spec.bytes = size;
    return p.predict(algorithm, spec)->first;
  }
};

/// One measured row: what `measure` writes for (algorithm, size) in `time_us`.
struct Row {
  std::string algorithm;
  Bytes bytes;
  sched::DataType dtype;
  double time_us;
};

rt::Measurement run_of(const std::vector<Row>& rows) {
  rt::Measurement run;
  run.ranks = 8;
  for (const Row& r : rows) {
    rt::MeasurementRow m;
    m.algorithm = r.algorithm;
    m.bytes = r.bytes.value;
    m.dtype = r.dtype;
    m.time_us = r.time_us;
    run.rows.push_back(std::move(m));
  }
  return run;
}

TEST(Validation, EachNameHasOneModel) {
  EXPECT_EQ(row_model("nccl"), RowModel::Nccl);
  EXPECT_EQ(row_model("mpi"), RowModel::OpenMpi);
  EXPECT_EQ(row_model("ring"), RowModel::Schedule);
  EXPECT_EQ(row_model("hierarchical(rhd)"), RowModel::Schedule);
}

TEST(Validation, ErrorsAreBusbwErrorsOfEachRowsOwnModel) {
  Fixture f;
  const Bytes mib(1 << 20);
  const double nccl_us = f.predicted_us("nccl", mib);
  const double ring_us = f.predicted_us("ring", mib);
  ASSERT_GT(nccl_us, 0);
  ASSERT_GT(ring_us, 0);
  // Measured twice as slow as NCCL's prediction: busbw half the predicted, error
  // predicted/measured busbw - 1 = t_meas/t_pred - 1 = +100 %. The ring row as predicted: 0.
  RowPredictor p = f.predictor();
  const auto rows = compare_run(run_of({{"nccl", mib, sched::DataType::F32, 2 * nccl_us},
                                        {"ring", mib, sched::DataType::F32, ring_us}}),
                                p);
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 2u);
  const ValidationRow& n = (*rows)[0];
  EXPECT_EQ(n.algorithm, "nccl");
  EXPECT_NEAR(n.error, 1.0, 1e-12);
  EXPECT_NE(n.model.find('/'), std::string::npos) << n.model;  // NCCL's "algo/proto"
  // nccl-tests: busbw = bytes / time x 2(n-1)/n, n = 8.
  EXPECT_NEAR(n.measured_busbw, (1 << 20) / (2 * nccl_us * 1e3) * 1.75, 1e-9);
  EXPECT_NEAR(n.predicted_busbw, 2 * n.measured_busbw, 1e-9);
  const ValidationRow& r = (*rows)[1];
  EXPECT_NEAR(r.error, 0.0, 1e-12);
  EXPECT_EQ(r.model, "simulated schedule");
}

TEST(Validation, TheSimulatorIsBuiltOnlyWhenARowNeedsIt) {
  Fixture f;
  RowPredictor nccl_only = f.predictor();
  ASSERT_TRUE(compare_run(run_of({{"nccl", Bytes(4096), sched::DataType::F32, 50}}), nccl_only));
  EXPECT_EQ(f.budget_calls, 0);
  RowPredictor mixed = f.predictor();
  const auto rows = compare_run(run_of({{"mpi", Bytes(4096), sched::DataType::F32, 50},
                                        {"ring", Bytes(8192), sched::DataType::F32, 60}}),
                                mixed);
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_EQ(f.budget_calls, 1);
  EXPECT_EQ((*rows)[0].model, "simulated rhd (Open MPI model)");
}

TEST(Validation, EmptyRowsAreSkippedAndUnknownAlgorithmsRefused) {
  Fixture f;
  RowPredictor p = f.predictor();
  const auto none = compare_run(run_of({{"nccl", Bytes(0), sched::DataType::F32, 5},
                                        {"nccl", Bytes(4096), sched::DataType::F32, 0}}),
                                p);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "the measurement has no sizes > 0");
  const auto bad = compare_run(run_of({{"rnig", Bytes(4096), sched::DataType::F32, 5}}), p);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("rnig"), std::string::npos) << bad.error().message;
}

// A reduce-scatter measured with MPI's own: its rows have no model (the Open MPI model is
// MPI_Allreduce's), so they are left out and named; the schedule rows are compared as usual.
// Open MPI's reduce-scatter on 8 ranks: recursive halving below 256 KiB, ring from there,
// both compared as Open MPI's; its allgather of 512 B per rank is the default (gatherv +
// broadcast), which has no schedule here: the row is left out, with the reason.
TEST(Validation, OpenMpiRowsOfOtherCollectivesAreLeftOutAndNamed) {
  Fixture f;
  RowPredictor p = f.predictor();
  rt::Measurement run = run_of({{"mpi", Bytes(4096), sched::DataType::F32, 50},
                                {"reduce_scatter_ring", Bytes(4096), sched::DataType::F32, 60},
                                {"mpi", Bytes(1 << 20), sched::DataType::F32, 900}});
  run.collective = sched::Collective::ReduceScatter;
  std::vector<std::string> unmodelled;
  const auto rows = compare_run(run, p, &unmodelled);
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[0].model, "simulated recursive halving (Open MPI model)");
  EXPECT_EQ((*rows)[1].algorithm, "reduce_scatter_ring");
  EXPECT_EQ((*rows)[2].model, "simulated ring (Open MPI model)");
  EXPECT_TRUE(unmodelled.empty());
  rt::Measurement ag = run_of({{"mpi", Bytes(4096), sched::DataType::F32, 50},
                               {"allgather_ring", Bytes(4096), sched::DataType::F32, 60}});
  ag.collective = sched::Collective::Allgather;
  const auto ag_rows = compare_run(ag, p, &unmodelled);
  ASSERT_TRUE(ag_rows) << ag_rows.error().message;
  ASSERT_EQ(ag_rows->size(), 1u);
  EXPECT_EQ((*ag_rows)[0].algorithm, "allgather_ring");
  EXPECT_EQ(unmodelled, std::vector<std::string>{
                            "rows of `mpi` at 1 size not compared: Open MPI's allgather "
                            "(MPI_Allgatherv) runs its default (gatherv + broadcast) algorithm "
                            "here (coll/tuned 4.1.4), which has no schedule in topotune"});
  rt::Measurement only_mpi = run_of({{"mpi", Bytes(4096), sched::DataType::F32, 50}});
  only_mpi.collective = sched::Collective::Allgather;
  unmodelled.clear();
  const auto none = compare_run(only_mpi, p, &unmodelled);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("no row with a model"), std::string::npos)
      << none.error().message;
}

TEST(Validation, SummariesPerAlgorithmInFileOrder) {
  std::vector<ValidationRow> rows(4);
  const char* names[] = {"tree", "ring", "tree", "ring"};
  const double errors[] = {0.1, -0.3, 0.2, 0.5};
  for (int i = 0; i < 4; ++i) {
    rows[i].algorithm = names[i];
    rows[i].bytes = std::int64_t{2} << 20;
    rows[i].measured_us = 100;
    rows[i].error = errors[i];
  }
  EXPECT_EQ(algorithms_of(rows), (std::vector<std::string>{"tree", "ring"}));
  const ErrorSummary all = summary_of(rows, "");
  EXPECT_EQ(all.count_large, 4);
  EXPECT_NEAR(all.max_large, 0.5, 1e-12);
  const ErrorSummary tree = summary_of(rows, "tree");
  EXPECT_EQ(tree.count_large, 2);
  EXPECT_NEAR(tree.max_large, 0.2, 1e-12);
  EXPECT_EQ(tree.count_small, 0);
}

}  // namespace
}  // namespace topotune::tune
