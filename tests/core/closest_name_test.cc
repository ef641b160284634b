// closest_name: the did-you-mean behind unknown subcommands and flags.
#include "core/closest_name.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace topotune {
namespace {

TEST(EditDistance, HandSolvedCases) {
  EXPECT_EQ(edit_distance("", ""), 0);
  EXPECT_EQ(edit_distance("plan", "plan"), 0);
  EXPECT_EQ(edit_distance("plna", "plan"), 1);  // a swap of neighbours is one edit
  EXPECT_EQ(edit_distance("nodse", "nodes"), 1);
  EXPECT_EQ(edit_distance("ca", "abc"), 3);            // OSA: no edit of a swapped pair again
  EXPECT_EQ(edit_distance("simulat", "simulate"), 1);  // one insertion
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3);    // k->s, e->i, +g
  EXPECT_EQ(edit_distance("", "abc"), 3);
}

TEST(ClosestName, SuggestsOnlyPlausibleTypos) {
  const std::vector<std::string> commands = {"instances", "topo",    "plan",     "schedule",
                                             "simulate",  "predict", "validate", "calibrate"};
  EXPECT_EQ(closest_name("plna", commands), "plan");
  EXPECT_EQ(closest_name("simulat", commands), "simulate");
  EXPECT_EQ(closest_name("calibrat", commands), "calibrate");
  EXPECT_EQ(closest_name("predcit", commands), "predict");
  EXPECT_FALSE(closest_name("xyz", commands));   // nothing near
  EXPECT_FALSE(closest_name("plan", commands));  // already a name
  EXPECT_FALSE(closest_name("", commands));
  EXPECT_FALSE(closest_name(std::string(1000, 'p'), commands));
  const std::vector<std::string> flags = {"instance", "nodes", "placement", "cluster"};
  EXPECT_EQ(closest_name("nodse", flags), "nodes");
  EXPECT_EQ(closest_name("instanec", flags), "instance");
  EXPECT_FALSE(closest_name("n", flags));
}

TEST(ClosestName, TiesGoToTheEarlierCandidate) {
  const std::vector<std::string> names = {"cat", "bat"};
  EXPECT_EQ(closest_name("hat", names), "cat");
}

}  // namespace
}  // namespace topotune
