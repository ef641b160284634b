// GCP A3 High (GPUDirect-TCPX) and A3 Mega (GPUDirect-TCPXO) as the NCCL model sees them: a NIC
// class each, and the NCCL environment Google's setups run their plugins with.

#include <gtest/gtest.h>

#include <string>

#include "algorithms/nccl/nccl_predictor.h"
#include "algorithms/nccl/nccl_system.h"
#include "topology/cluster_spec.h"

namespace topotune::algo {
namespace {

using sched::Collective;

NcclSystem gcp(const std::string& instance, int hosts) {
  Expected<topo::ClusterSpec> spec = topo::make_cluster_spec(instance, hosts);
  EXPECT_TRUE(spec) << spec.error().message;
  Expected<NcclSystem> s = nccl_system_from_cluster(*spec);
  EXPECT_TRUE(s) << s.error().message;
  return *s;
}

TEST(GcpTcpx, CatalogInstancesAreTransportsOfTheirOwn) {
  const NcclSystem high = gcp("a3-highgpu-8g", 2);
  const NcclSystem mega = gcp("a3-megagpu-8g", 2);
  EXPECT_EQ(high.nic_class, NicClass::Tcpx);
  EXPECT_EQ(mega.nic_class, NicClass::Tcpxo);
  EXPECT_STREQ(nic_class_name(high.nic_class), "tcpx");
  EXPECT_STREQ(nic_class_name(mega.nic_class), "tcpxo");
  // 4 GPU NICs of 200 Gbps on A3 High (one per two GPUs), 8 on A3 Mega.
  EXPECT_EQ(high.nics_per_node, 4);
  EXPECT_EQ(mega.nics_per_node, 8);
  EXPECT_DOUBLE_EQ(high.nic_bandwidth.gbps_bytes(), 25.0);
  EXPECT_DOUBLE_EQ(high.gpus_per_nic_switch, 2.0);
  // Both plugins report NCCL_PTR_CUDA: NCCL reads GPU buffers, no host staging.
  EXPECT_TRUE(high.gpudirect_rdma);
  EXPECT_TRUE(mega.gpudirect_rdma);
  // Their parameters are their own, not NCCL's sockets'.
  EXPECT_NE(find_param("net_efficiency.tcpx"), nullptr);
  EXPECT_NE(find_param("nic_latency_us.tcpxo"), nullptr);
}

TEST(GcpTcpx, TcpxRunsRingSimpleOnEightChannels) {
  // Google's TCPX setup: NCCL_ALGO=Ring, NCCL_PROTO=Simple, NCCL_MIN/MAX_NCHANNELS=8.
  const NcclPredictor p(gcp("a3-highgpu-8g", 2), default_params(), {});
  for (Collective c : {Collective::Allreduce, Collective::Allgather}) {
    for (std::int64_t b : {std::int64_t{8}, std::int64_t{1} << 20, std::int64_t{1} << 30}) {
      const NcclPrediction r = p.predict(c, Bytes(b)).value();
      EXPECT_EQ(r.chosen.algo, NcclAlgo::Ring) << b;
      EXPECT_EQ(r.chosen.proto, NcclProto::Simple) << b;
    }
  }
  EXPECT_EQ(p.graphs().comm_channels, 8);
  EXPECT_EQ(
      p.evaluate(Collective::Allreduce, Bytes(8), NcclAlgo::Tree, NcclProto::Simple).why_disabled,
      "excluded by NCCL_ALGO");
  // A user's own NCCL_PROTO is kept.
  NcclOptions ll;
  ll.protos = {NcclProto::LL};
  const NcclPredictor user(gcp("a3-highgpu-8g", 2), default_params(), ll);
  EXPECT_EQ(user.predict(Collective::Allgather, Bytes(8)).value().chosen.proto, NcclProto::LL);
}

TEST(GcpTcpx, TcpxoProfileLeavesSimpleAndLl128) {
  // nccl-env-profile.sh of the TCPXO plugin: NCCL_PROTO=Simple,LL128, NCCL_MIN_NCHANNELS=4.
  const NcclPredictor p(gcp("a3-megagpu-8g", 2), default_params(), {});
  EXPECT_EQ(p.evaluate(Collective::Allreduce, Bytes(8), NcclAlgo::Ring, NcclProto::LL).why_disabled,
            "excluded by NCCL_PROTO");
  EXPECT_TRUE(
      p.evaluate(Collective::Allreduce, Bytes(8), NcclAlgo::Tree, NcclProto::LL128).enabled);
  EXPECT_GE(p.graphs().comm_channels, 4);
}

}  // namespace
}  // namespace topotune::algo
