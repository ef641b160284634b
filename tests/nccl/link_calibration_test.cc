// Calibration on the topology side: which calibrated parameters become link-class parameters
// (docs/calibration.md), the "link_params" section winning over the mapping, and clear errors.

#include "calibration/link_calibration.h"

#include <gtest/gtest.h>

#include "algorithms/nccl/nccl_system.h"
#include "topology/model_defaults.h"

namespace topotune::tune {
namespace {

using topo::LinkKind;

// A model whose mapped values differ from every topology default, so each mapping shows.
algo::NcclModelParams distinct_model() {
  algo::NcclModelParams p = algo::default_params();
  p.nvlink_efficiency = 0.61;
  p.pcie_efficiency = 0.62;
  for (int c = 0; c < algo::kNumNicClasses; ++c) {
    p.net_efficiency[c] = 0.5 + 0.01 * c;  // one value per class: the right class is picked
    p.nic_latency_us[c] = 10.0 * (c + 1);
  }
  p.nvls_efficiency = 0.33;  // NCCL-only: must not appear anywhere
  return p;
}

TEST(LinkCalibration, MapsPhysicalParametersOfTheClustersNicClass) {
  topo::ClusterSpec spec = topo::make_cluster_spec("p4d.24xlarge", 2).value();
  const auto defaults = spec.link_params;
  const algo::NcclModelParams p = distinct_model();
  ASSERT_TRUE(apply_model_to_links(p, spec).has_value());
  const int nic = static_cast<int>(algo::nccl_system_from_cluster(spec).value().nic_class);
  EXPECT_DOUBLE_EQ(spec.params(LinkKind::NvLink).efficiency, 0.61);
  EXPECT_DOUBLE_EQ(spec.params(LinkKind::Pcie).efficiency, 0.62);
  EXPECT_DOUBLE_EQ(spec.params(LinkKind::Network).efficiency, p.net_efficiency[nic]);
  EXPECT_DOUBLE_EQ(spec.params(LinkKind::Uplink).efficiency, p.net_efficiency[nic]);
  // One crossing = NIC -> switch -> NIC: the per-crossing latency split over two hops.
  EXPECT_NEAR(spec.params(LinkKind::Network).latency.us(), p.nic_latency_us[nic] / 2, 1e-9);
  // Not mapped: NVLink/uplink latency and the CPU interconnect keep the defaults.
  EXPECT_EQ(spec.params(LinkKind::NvLink).latency.value,
            defaults[static_cast<int>(LinkKind::NvLink)].latency.value);
  EXPECT_EQ(spec.params(LinkKind::Uplink).latency.value,
            defaults[static_cast<int>(LinkKind::Uplink)].latency.value);
  const auto cpu = static_cast<int>(LinkKind::CpuInterconnect);
  EXPECT_EQ(spec.link_params[cpu].efficiency, defaults[cpu].efficiency);
  EXPECT_EQ(spec.link_params[cpu].latency.value, defaults[cpu].latency.value);
}

TEST(LinkCalibration, InfinibandAndEfaPickTheirOwnClass) {
  // dgx-h100 has InfiniBand NICs, p5 EFA with RDMA write: different rows of the model.
  const algo::NcclModelParams p = distinct_model();
  topo::ClusterSpec ib = topo::make_cluster_spec("dgx-h100", 2).value();
  topo::ClusterSpec efa = topo::make_cluster_spec("p5.48xlarge", 2).value();
  ASSERT_TRUE(apply_model_to_links(p, ib).has_value());
  ASSERT_TRUE(apply_model_to_links(p, efa).has_value());
  EXPECT_DOUBLE_EQ(ib.params(LinkKind::Network).efficiency,
                   p.net_efficiency[static_cast<int>(algo::NicClass::InfiniBand)]);
  EXPECT_DOUBLE_EQ(efa.params(LinkKind::Network).efficiency,
                   p.net_efficiency[static_cast<int>(algo::NicClass::EfaRdma)]);
}

TEST(LinkCalibration, LinkParamsSectionWinsOverTheMapping) {
  const std::string text = R"({"schema": "topotune.nccl_model/2",
    "parameters": {"nvlink_efficiency": 0.7, "net_efficiency.efa_srd": 0.6},
    "link_params": {"nvlink": {"latency_us": 0.9}, "network": {"efficiency": 0.55}}})";
  const LinkCalibration c = parse_link_calibration(text, "c.json", algo::default_params()).value();
  EXPECT_DOUBLE_EQ(c.model.nvlink_efficiency, 0.7);
  topo::ClusterSpec spec = topo::make_cluster_spec("p4d.24xlarge", 2).value();
  ASSERT_TRUE(apply_calibration(c, spec, "c.json").has_value());
  EXPECT_DOUBLE_EQ(spec.params(LinkKind::NvLink).efficiency, 0.7);      // mapped
  EXPECT_NEAR(spec.params(LinkKind::NvLink).latency.us(), 0.9, 1e-12);  // section
  EXPECT_DOUBLE_EQ(spec.params(LinkKind::Network).efficiency, 0.55);    // section over mapping
}

TEST(LinkCalibration, BadFilesAreErrorsNamingTheKey) {
  const auto base = algo::default_params();
  const auto err = [&](const std::string& body) {
    const std::string text = R"({"schema": "topotune.nccl_model/2", )" + body + "}";
    auto c = parse_link_calibration(text, "c.json", base);
    if (!c) return c.error().message;
    topo::ClusterSpec spec = topo::make_cluster_spec("p4d.24xlarge", 2).value();
    auto r = apply_calibration(*c, spec, "c.json");
    return r ? std::string("no error") : r.error().message;
  };
  EXPECT_NE(err(R"("parameters": {}, "link_param": {})").find("unknown key 'link_param'"),
            std::string::npos);
  EXPECT_NE(err(R"("parameters": {"nvlink_eficiency": 0.5})").find("unknown parameter"),
            std::string::npos);
  EXPECT_NE(err(R"("parameters": {"net_efficiency.efa_srd": 1.5})").find("must be in [0.001, 1]"),
            std::string::npos);
  EXPECT_NE(err(R"("parameters": {"nvlink_efficiency": "high"})").find("must be a number"),
            std::string::npos);
  EXPECT_NE(err(R"("parameters": {}, "link_params": {"nvlnk": {}})").find("nvlnk"),
            std::string::npos);
  EXPECT_NE(err(R"("parameters": {}, "link_params": {"pcie": {"efficiency": 2}})")
                .find("link_params.pcie.efficiency"),
            std::string::npos);
  EXPECT_EQ(err(R"("parameters": {}, "link_params": {"pcie": {"efficiency": 0.5}})"), "no error");
}

}  // namespace
}  // namespace topotune::tune
