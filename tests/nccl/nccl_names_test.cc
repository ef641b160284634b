// Names of NCCL's algorithms, protocols and NIC classes: one table each for both directions;
// the parser is case-insensitive and takes NCCL_ALGO's "nvlstree" as well.

#include <gtest/gtest.h>

#include "algorithms/nccl/nccl_params.h"

namespace topotune::algo {
namespace {

TEST(NcclNames, AlgorithmsParseFromTheirNames) {
  for (int a = 0; a < kNumNcclAlgos; ++a) {
    const auto algo = static_cast<NcclAlgo>(a);
    EXPECT_EQ(*parse_nccl_algo(nccl_algo_name(algo)), algo);
  }
  EXPECT_EQ(*parse_nccl_algo("NVLSTree"), NcclAlgo::NvlsTree);
  EXPECT_EQ(*parse_nccl_algo("Ring"), NcclAlgo::Ring);
}

TEST(NcclNames, NamesAreTheDataFileKeys) {
  EXPECT_STREQ(nccl_algo_name(NcclAlgo::NvlsTree), "nvls_tree");
  EXPECT_STREQ(nccl_proto_name(NcclProto::LL128), "LL128");
  EXPECT_STREQ(nic_class_name(NicClass::EfaRdma), "efa_rdma");
}

TEST(NcclNames, UnknownAlgorithmKeepsItsWording) {
  EXPECT_EQ(parse_nccl_algo("rign").error().message,
            "unknown NCCL algorithm 'rign' (ring, tree, nvls, nvls_tree, pat)");
}

}  // namespace
}  // namespace topotune::algo
