// Open MPI 4.1.4's coll/tuned fixed decisions for MPI_Reduce_scatter and MPI_Allgatherv, on
// each side of boundaries read off coll_tuned_decision_fixed.c.
#include "algorithms/open_mpi_decision.h"

#include <gtest/gtest.h>

namespace topotune::algo {
namespace {

TEST(OpenMpiDecision, ReduceScatter) {
  using A = OmpiReduceScatter;
  EXPECT_EQ(open_mpi_reduce_scatter(2, 65535), A::Ring);
  EXPECT_EQ(open_mpi_reduce_scatter(2, 65536), A::Butterfly);
  EXPECT_EQ(open_mpi_reduce_scatter(2, 131072), A::Ring);
  EXPECT_EQ(open_mpi_reduce_scatter(4, 4), A::NonOverlapping);
  EXPECT_EQ(open_mpi_reduce_scatter(4, 262143), A::RecursiveHalving);
  EXPECT_EQ(open_mpi_reduce_scatter(4, 262144), A::Ring);  // the emulated 2 x 2's sizes
  EXPECT_EQ(open_mpi_reduce_scatter(16, 1 << 20), A::Ring);
  EXPECT_EQ(open_mpi_reduce_scatter(32, 524287), A::Butterfly);
  EXPECT_EQ(open_mpi_reduce_scatter(32, 524288), A::Ring);
  EXPECT_EQ(open_mpi_reduce_scatter(64, 3000), A::RecursiveHalving);
  EXPECT_EQ(open_mpi_reduce_scatter(64, 1 << 30), A::Butterfly);
  EXPECT_EQ(open_mpi_reduce_scatter(512, 10000), A::RecursiveHalving);
  EXPECT_EQ(open_mpi_reduce_scatter(1024, 10000), A::Butterfly);
  EXPECT_EQ(open_mpi_reduce_scatter(1024, 20000), A::RecursiveHalving);
  EXPECT_EQ(open_mpi_reduce_scatter(8192, 1000), A::NonOverlapping);
  EXPECT_EQ(open_mpi_reduce_scatter(8192, 8191), A::RecursiveHalving);
  EXPECT_EQ(open_mpi_reduce_scatter(8192, 8192), A::Butterfly);
}

TEST(OpenMpiDecision, Allgatherv) {
  using A = OmpiAllgatherv;
  EXPECT_EQ(open_mpi_allgatherv(2, 2 * 2047), A::Ring);
  EXPECT_EQ(open_mpi_allgatherv(2, 2 * 2048), A::TwoProc);
  EXPECT_EQ(open_mpi_allgatherv(2, 2 * 4096), A::Ring);
  EXPECT_EQ(open_mpi_allgatherv(2, 2 * 8192), A::TwoProc);
  EXPECT_EQ(open_mpi_allgatherv(4, 4 * 255), A::Default);
  EXPECT_EQ(open_mpi_allgatherv(4, 4 * 8000), A::Ring);
  EXPECT_EQ(open_mpi_allgatherv(4, 4 * 100000), A::Bruck);
  EXPECT_EQ(open_mpi_allgatherv(4, 4 * 262144), A::Neighbor);  // the emulated 2 x 2's sizes
  EXPECT_EQ(open_mpi_allgatherv(8, 8 * 1023), A::Default);
  EXPECT_EQ(open_mpi_allgatherv(8, 8 * 1 << 20), A::Bruck);
  EXPECT_EQ(open_mpi_allgatherv(16, 16 * 262144), A::Ring);
  EXPECT_EQ(open_mpi_allgatherv(128, 128 * 1000), A::Bruck);
  EXPECT_EQ(open_mpi_allgatherv(128, 128 * 10000), A::Neighbor);
  EXPECT_EQ(open_mpi_allgatherv(512, 512 * 768), A::Default);
  EXPECT_EQ(open_mpi_allgatherv(2048, 2048 * 4096), A::Neighbor);
}

}  // namespace
}  // namespace topotune::algo
