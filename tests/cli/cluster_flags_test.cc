// --instance/--nodes/--placement/--cluster: one rule for every command (cli/cluster_flags.h).
#include "cli/cluster_flags.h"

#include <gtest/gtest.h>

#include <string>

namespace topotune::cli {
namespace {

const std::string kFile = R"({"schema": "topotune.cluster/1", "instance": "p4d.24xlarge",
                              "nodes": 4})";

ClusterFlags parse(const std::string& args) {
  CLI::App app;
  ClusterFlags f;
  add_cluster_flags(app, f);
  app.parse(args, false);
  return f;
}

TEST(ClusterFlags, InstanceDefaultsToOneNodeInCluster) {
  const auto spec = resolve_cluster(parse("--instance p4d.24xlarge"));
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->hosts, 1);
  EXPECT_EQ(spec->placement, topo::Placement::Cluster);
}

// Before, predict/validate's rule let --nodes override a file only above 1.
TEST(ClusterFlags, NodesOverrideTheFileWhenGivenEvenAtOne) {
  ClusterFlags f = parse("--cluster c.json --nodes 1");
  const auto one = resolve_cluster_text(f, kFile);
  ASSERT_TRUE(one) << one.error().message;
  EXPECT_EQ(one->hosts, 1);
  const auto file = resolve_cluster_text(parse("--cluster c.json"), kFile);
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_EQ(file->hosts, 4);
}

TEST(ClusterFlags, FlagsTheFileStatesAreRefused) {
  const auto inst = resolve_cluster_text(parse("--cluster c.json --instance p5.48xlarge"), kFile);
  ASSERT_FALSE(inst);
  EXPECT_EQ(inst.error().message, "--instance would be ignored with --cluster (the file says it)");
  EXPECT_FALSE(check_cluster_flags(parse("--cluster c.json --placement spread")));
}

TEST(ClusterFlags, NodeRangeAndMissingCluster) {
  EXPECT_EQ(check_cluster_flags(parse("--instance p4d.24xlarge --nodes 0")).error().message,
            "--nodes must be in 1..65536, got 0");
  EXPECT_FALSE(check_cluster_flags(parse("--instance p4d.24xlarge --nodes 65537")));
  EXPECT_TRUE(check_cluster_flags(parse("--instance p4d.24xlarge --nodes 65536")));
  EXPECT_EQ(resolve_cluster(parse("")).error().message,
            "give --instance NAME --nodes N, or --cluster FILE");
  EXPECT_EQ(resolve_cluster(parse("--placement spread")).error().message,
            "--placement needs --instance");
}

// schedule's --ranks is refused beside any of the four flags, --nodes alone included.
TEST(ClusterFlags, AnyFlagCountsEachOfTheFour) {
  EXPECT_FALSE(any_cluster_flag(parse("")));
  EXPECT_TRUE(any_cluster_flag(parse("--instance p4d.24xlarge")));
  EXPECT_TRUE(any_cluster_flag(parse("--cluster c.json")));
  EXPECT_TRUE(any_cluster_flag(parse("--placement spread")));
  EXPECT_TRUE(any_cluster_flag(parse("--nodes 1")));
}

}  // namespace
}  // namespace topotune::cli
