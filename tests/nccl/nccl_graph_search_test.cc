// The emulated topology search against what NCCL's source implies for the nodes we model
// (each case derived from NVIDIA/nccl src/graph/search.cc of the release named) and against
// what real runs printed (NCCL_DEBUG=INFO lines quoted in public issues).

#include "algorithms/nccl/nccl_graph_search.h"

#include <gtest/gtest.h>

#include "algorithms/nccl/nccl_predictor.h"
#include "tests/nccl/test_systems.h"

namespace topotune::algo {
namespace {

constexpr int R(int ma, int mi, int pa) { return nccl_release_code(ma, mi, pa); }

NcclGraphs search_of(const NcclSystem& s, int release, bool nvls = false) {
  return nccl_search(nccl_node_view(s, release), release, s.nodes, nvls, true, 0.0);
}

TEST(NcclGraphSearch, SingleNodeA100) {
  // GPU<->NVSwitch 12 x 20 = 240 GB/s: 6 channels of 40 fill it (done), duplicated to 12 x 20.
  const NcclGraphs g = search_of(testing::dgx_a100(1), R(2, 23, 4));
  EXPECT_EQ(g.ring.channels, 12);
  EXPECT_DOUBLE_EQ(g.ring.bw_intra, 20);
  EXPECT_EQ(g.comm_channels, 24);
}

TEST(NcclGraphSearch, SingleNodeH100MatchesARealLog) {
  // NVIDIA/nccl issue #1367 (NCCL 2.19.3, 8 x H100): "maxBw 360.0 totalBw 360.0", 12 ring
  // channels, 24 after duplication. 2.19 counts 18 x 20.0; 2.20.3+ 18 x 20.6 = 370.8.
  const NcclNodeView v = nccl_node_view(testing::dgx_h100(1), R(2, 19, 3));
  EXPECT_DOUBLE_EQ(v.nvlink_bw, 360.0);
  const NcclGraphs g = search_of(testing::dgx_h100(1), R(2, 19, 3));
  EXPECT_EQ(g.ring.channels, 12);
  EXPECT_DOUBLE_EQ(g.ring.bw_intra, 30);
  EXPECT_EQ(g.comm_channels, 24);
  EXPECT_NEAR(nccl_node_view(testing::dgx_h100(1), R(2, 23, 4)).nvlink_bw, 370.8, 1e-9);
}

TEST(NcclGraphSearch, SingleNodeH100Nvls) {
  // 8 heads; each head's channel costs its speed on every GPU's switch link and twice on its
  // own (9 x s <= 370.8 -> 40); pass 2 raises bwInter toward 2 x bwIntra (60, the top).
  const NcclGraphs g = search_of(testing::dgx_h100(1), R(2, 23, 4), true);
  EXPECT_EQ(g.nvls.channels, 8);
  EXPECT_DOUBLE_EQ(g.nvls.bw_intra, 40);
  EXPECT_DOUBLE_EQ(g.nvls.bw_inter, 60);
  EXPECT_EQ(g.nvls_channels, 16);  // NVLS_NCHANNELS (SM90)
}

TEST(NcclGraphSearch, P4dWithAwsTopologyFile) {
  // PCIe Gen3 x16 (12 GB/s) to each 100 Gbps EFA, 2 GPUs per NIC switch: one 12 GB/s ring per
  // NIC; the tree's pass 2 raises bwIntra to 24 (2 x bwInter). 8 run channels, as the 2.9.9
  // log of our validation data prints ("8 coll channels").
  for (int rel : {R(2, 9, 9), R(2, 23, 4)}) {
    const NcclGraphs g = search_of(testing::p4d(2), rel);
    EXPECT_EQ(g.ring.channels, 4) << rel;
    EXPECT_DOUBLE_EQ(g.ring.bw_inter, 12) << rel;
    EXPECT_EQ(g.tree.channels, 4) << rel;
    EXPECT_DOUBLE_EQ(g.tree.bw_intra, 24) << rel;
    EXPECT_DOUBLE_EQ(g.tree.bw_inter, 12) << rel;
    EXPECT_EQ(g.comm_channels, 8) << rel;
  }
}

TEST(NcclGraphSearch, DgxA100AcrossNodes) {
  // 200 Gbps (25 GB/s) NICs behind PCIe Gen4 (24): one 24 GB/s channel per NIC; the tree's
  // bwIntra climbs 28, 30 (8 x 30 = 240 fills NVLink).
  const NcclGraphs g = search_of(testing::dgx_a100(4), R(2, 23, 4));
  EXPECT_EQ(g.ring.channels, 8);
  EXPECT_DOUBLE_EQ(g.ring.bw_inter, 24);
  EXPECT_DOUBLE_EQ(g.tree.bw_intra, 30);
  EXPECT_EQ(g.comm_channels, 16);
}

TEST(NcclGraphSearch, DgxH100AndP5AcrossNodes) {
  // 400 Gbps (50 GB/s) NICs behind PCIe Gen5 (48), one per GPU; p5's 32 EFA rails are merged
  // by aws-ofi-nccl into 8 devices of 400 Gbps. 8 x 48 >= 370.8 ends the search; 48 < 50
  // leaves the channels undoubled; the sm90 doubling needs fewer than 16 (2.20.3+) but took
  // 2 x 16 <= MAXCHANNELS in 2.18.1 .. 2.19.4.
  for (const NcclSystem& s : {testing::dgx_h100(4), testing::p5(4)}) {
    const NcclGraphs g = search_of(s, R(2, 23, 4), true);
    EXPECT_EQ(g.ring.channels, 8) << s.instance;
    EXPECT_DOUBLE_EQ(g.ring.bw_intra, 48) << s.instance;
    EXPECT_TRUE(g.tree.tree_pattern) << s.instance;  // one GPU per NIC switch
    EXPECT_EQ(g.comm_channels, 16) << s.instance;
    EXPECT_EQ(search_of(s, R(2, 19, 3)).comm_channels, 32) << s.instance;
  }
  EXPECT_DOUBLE_EQ(nccl_node_view(testing::p5(2), R(2, 23, 4)).net_bw, 50.0);
  EXPECT_EQ(nccl_node_view(testing::p5(2), R(2, 23, 4)).nets, 8);
}

TEST(NcclGraphSearch, OneGpuNodesOnPcieMatchARealLog) {
  // NVIDIA/nccl-tests issue #350 (NCCL 2.16.5, 2 nodes x 1 A100 PCIe, 200 Gbps IB on PCIe
  // Gen4): "Pattern 4, crossNic 0, nChannels 1, bw 24.000000/24.000000", "Pattern 3 ...
  // nChannels 1, bw 48.000000/24.000000", "2 coll channels".
  NcclNodeView v;
  v.gpus = 1;
  v.cc = 80;
  v.fabric = topo::IntraFabric::PcieOnly;
  v.nvlink_bw = v.pci_bw = 24;
  v.nets = 1;
  v.net_bw = 25;
  const NcclGraphs g = nccl_search(v, R(2, 16, 5), 2, false, true, 0.0);
  EXPECT_EQ(g.ring.channels, 1);
  EXPECT_DOUBLE_EQ(g.ring.bw_intra, 24);
  EXPECT_EQ(g.tree.channels, 1);
  EXPECT_DOUBLE_EQ(g.tree.bw_intra, 48);
  EXPECT_DOUBLE_EQ(g.tree.bw_inter, 24);
  EXPECT_EQ(g.comm_channels, 2);
}

}  // namespace
}  // namespace topotune::algo
