// Names of the schedule and algorithm enums: each parser reads the names its enum's name
// function writes (one table for both directions), plus the aliases it documents.

#include <gtest/gtest.h>

#include <string>

#include "algorithms/algorithm.h"
#include "algorithms/schedule/collective_spec.h"

namespace topotune {
namespace {

using algo::AlgoKind;
using algo::PsPlacement;
using sched::Collective;
using sched::DataType;

TEST(EnumNames, EachValueParsesFromItsOwnName) {
  for (Collective c : {Collective::Allreduce, Collective::ReduceScatter, Collective::Allgather,
                       Collective::Broadcast}) {
    EXPECT_EQ(*sched::parse_collective(sched::collective_name(c)), c);
  }
  for (DataType d : {DataType::F32, DataType::F16, DataType::BF16}) {
    EXPECT_EQ(*sched::parse_dtype(sched::dtype_name(d)), d);
  }
  for (PsPlacement p : {PsPlacement::Colocated, PsPlacement::Cpu}) {
    EXPECT_EQ(*algo::parse_ps_placement(algo::ps_placement_name(p)), p);
  }
  for (AlgoKind a :
       {AlgoKind::Ring, AlgoKind::DbTree, AlgoKind::HalvingDoubling, AlgoKind::ParameterServer}) {
    EXPECT_EQ(*algo::parse_inner_algorithm(algo::inner_algorithm_name(a)), a);
  }
}

TEST(EnumNames, AliasesAndSpellings) {
  EXPECT_EQ(*sched::parse_collective("All-Reduce"), Collective::Allreduce);
  EXPECT_EQ(*sched::parse_collective("reducescatter"), Collective::ReduceScatter);
  EXPECT_EQ(*sched::parse_collective("all_gather"), Collective::Allgather);
  EXPECT_EQ(*sched::parse_collective("bcast"), Collective::Broadcast);
  for (const char* n : {"float32", "f32", "float", "FP32"}) {
    EXPECT_EQ(*sched::parse_dtype(n), DataType::F32) << n;
  }
  for (const char* n : {"float16", "f16", "half"}) EXPECT_EQ(*sched::parse_dtype(n), DataType::F16);
  EXPECT_EQ(*sched::parse_dtype("bfloat16"), DataType::BF16);
  EXPECT_EQ(*algo::parse_ps_placement("gpu"), PsPlacement::Colocated);
  EXPECT_EQ(*algo::parse_inner_algorithm("tree"), AlgoKind::DbTree);
}

TEST(EnumNames, UnknownNamesListTheKnownOnes) {
  EXPECT_EQ(sched::parse_collective("alltoall").error().message,
            "unknown collective 'alltoall' (known: allreduce, reduce_scatter, allgather, "
            "broadcast)");
  EXPECT_EQ(sched::parse_dtype("fp8").error().message,
            "unknown dtype 'fp8' (known: fp32, fp16, bf16)");
  EXPECT_EQ(algo::parse_ps_placement("nic").error().message,
            "unknown parameter server placement 'nic' (known: colocated, cpu)");
  EXPECT_EQ(algo::parse_inner_algorithm("Ring").error().message,
            "unknown inner algorithm 'Ring' (known: ring, dbtree, rhd, ps)");
}

}  // namespace
}  // namespace topotune
