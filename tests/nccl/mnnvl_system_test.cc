// Multi-node NVLink (MNNVL) as the NCCL model sees it: one node per NVLink domain, of all the
// domain's GPUs and NICs (NCCL fuses the clique's topology: src/graph/topo.cc at v2.28.7-1).

#include <gtest/gtest.h>

#include <string>

#include "algorithms/nccl/nccl_system.h"

namespace topotune::algo {
namespace {

// A GB200/GB300 compute tray: 4 Blackwell GPUs, NVLink 5 (18 x 50 GB/s), 4 NICs of 800 Gbps.
topo::InstanceSpec tray(int domain_hosts) {
  topo::InstanceSpec s;
  s.name = "tray";
  s.num_gpus = 4;
  s.gpu.arch = topo::GpuArch::Blackwell;
  s.fabric = topo::IntraFabric::NvSwitch;
  s.nvlink_bandwidth_per_link = gbyte_per_sec(50);
  s.nvlinks_per_gpu = 18;
  s.nvls = true;
  s.nvlink_domain_hosts = domain_hosts;
  s.num_nics = 4;
  s.nic_bandwidth = gbit_per_sec(800);
  s.transport = topo::NetTransport::Roce;
  s.gpudirect_rdma = true;
  return s;
}

Expected<NcclSystem> system(const topo::InstanceSpec& inst, int hosts) {
  topo::ClusterSpec spec;
  spec.instance = inst;
  spec.hosts = hosts;
  return nccl_system_from_cluster(spec);
}

TEST(MnnvlSystem, OneNodePerDomain) {
  auto two_racks = system(tray(18), 36);
  ASSERT_TRUE(two_racks) << two_racks.error().message;
  EXPECT_EQ(two_racks->nodes, 2);
  EXPECT_EQ(two_racks->gpus_per_node, 72);
  EXPECT_EQ(two_racks->nics_per_node, 72);
  EXPECT_EQ(two_racks->ranks(), 144);
  EXPECT_DOUBLE_EQ(two_racks->gpu_intra_bandwidth.value, 900e9);
  EXPECT_TRUE(two_racks->nvls);
  // Fewer hosts than a domain holds: one node of them all.
  auto pair = system(tray(18), 2);
  ASSERT_TRUE(pair);
  EXPECT_EQ(pair->nodes, 1);
  EXPECT_EQ(pair->gpus_per_node, 8);
  // No domain: a node per host, as before.
  auto hosts = system(tray(1), 36);
  ASSERT_TRUE(hosts);
  EXPECT_EQ(hosts->nodes, 36);
  EXPECT_EQ(hosts->gpus_per_node, 4);
  EXPECT_EQ(hosts->nics_per_node, 4);
}

// Two trays in one domain are the 8-GPU node the cluster files used to describe by hand.
TEST(MnnvlSystem, SameAsOneNodeOfTheDomainsGpus) {
  topo::InstanceSpec node = tray(1);
  node.num_gpus = 8;
  node.num_nics = 8;
  const NcclSystem a = system(tray(18), 2).value();
  const NcclSystem b = system(node, 1).value();
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.gpus_per_node, b.gpus_per_node);
  EXPECT_EQ(a.nics_per_node, b.nics_per_node);
  EXPECT_DOUBLE_EQ(a.gpus_per_nic_switch, b.gpus_per_nic_switch);
  EXPECT_DOUBLE_EQ(a.gpu_intra_bandwidth.value, b.gpu_intra_bandwidth.value);
}

TEST(MnnvlSystem, PartialLastDomainIsRefused) {
  auto r = system(tray(18), 20);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::Unsupported);
  EXPECT_NE(r.error().message.find("partial NVLink domain of 2"), std::string::npos)
      << r.error().message;
}

// The refusal says what to run instead: a whole number of domains, or the job's NVLink
// partition as a domain size dividing the host count (20 = 10*2 = 5*4; 19 is prime).
TEST(MnnvlSystem, PartialDomainRefusalNamesWhatToRun) {
  auto r = system(tray(18), 20);
  ASSERT_FALSE(r);
  const std::string& m = r.error().message;
  EXPECT_NE(m.find("after 1 full domain(s) of 18 hosts"), std::string::npos) << m;
  EXPECT_NE(m.find("multiple of 18 hosts"), std::string::npos) << m;
  EXPECT_NE(m.find("intra.nvlink_domain_hosts"), std::string::npos) << m;
  EXPECT_NE(m.find("dividing 20 (10, 5, 4, 2)"), std::string::npos) << m;
  auto prime = system(tray(18), 19);
  ASSERT_FALSE(prime);
  EXPECT_NE(prime.error().message.find("dividing 19 (1, NVLink ending at the host)"),
            std::string::npos)
      << prime.error().message;
}

}  // namespace
}  // namespace topotune::algo
