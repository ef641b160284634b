// Every JSON reader parses through parse_checked_json (core/checked_json.h). Before it, 80,000
// levels of nesting (a 160 KB file) crashed each of these readers with SIGSEGV in nlohmann's
// recursive destructor; now each returns one error naming its file and the byte.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "algorithms/nccl/nccl_params.h"
#include "algorithms/schedule/schedule_json.h"
#include "calibration/link_calibration.h"
#include "measurement/measurement.h"
#include "planning/model_profile.h"
#include "planning/plan.h"
#include "tests/lib/nested_json.h"
#include "topology/cluster_spec.h"

namespace topotune {
namespace {

// One reader of a JSON input, as the command that reads it calls it; returns the error
// message, or "" when the text is accepted.
struct Reader {
  const char* name;
  std::function<std::string(const std::string&)> read;
};

template <class T>
std::string message(const Expected<T>& r) {
  return r ? "" : r.error().message;
}

std::vector<Reader> readers() {
  return {
      {"model profile (plan --model)",
       [](const std::string& t) { return message(tune::parse_model_profile(t, "m.json")); }},
      {"calibration (--calibration)",
       [](const std::string& t) {
         return message(algo::params_from_json(t, "c.json", algo::default_params()));
       }},
      {"calibration link_params",
       [](const std::string& t) {
         return message(tune::parse_link_calibration(t, "c.json", algo::default_params()));
       }},
      {"measurement (--measured)",
       [](const std::string& t) { return message(rt::measurement_from_json(t, "m.json")); }},
      {"plan replay (plan --replay)",
       [](const std::string& t) { return message(tune::read_plan_json(t, "p.json")); }},
      {"cluster file (--cluster)",
       [](const std::string& t) { return message(topo::parse_cluster_json(t, "c.json")); }},
      {"schedule (simulate --schedule)",
       [](const std::string& t) { return message(sched::ScheduleJson::parse(t, "s.json")); }},
  };
}

using test_support::nested_arrays;
using test_support::nested_objects;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(JsonReaders, EightyThousandLevelsOfArraysAreRefused) {
  const std::string deep = nested_arrays(80000);
  for (const Reader& r : readers()) {
    EXPECT_TRUE(contains(r.read(deep), "nesting deeper than 64 levels at byte 65")) << r.name;
  }
}

TEST(JsonReaders, EightyThousandLevelsOfObjectsAreRefused) {
  // Inside a document that is otherwise fine up to the nesting.
  const std::string deep = R"({"schema": "x", "z": )" + nested_objects(80000) + "}";
  for (const Reader& r : readers()) {
    EXPECT_TRUE(contains(r.read(deep), "nesting deeper than 64 levels at byte 337")) << r.name;
  }
}

// The crash needed a document the reader accepts: a valid profile whose unknown key holds the
// nesting reached the recursive dump of the profile's record (SIGSEGV on main 01df825).
TEST(JsonReaders, ValidProfileWithDeepUnknownKeyIsRefused) {
  const std::string profile =
      R"({"schema": "topotune.model_profile/1", "name": "x", "layers": [{"name": "l",)"
      R"( "forward_flops": 1}], "params": [{"name": "w", "numel": 1, "layer": 0}], "z": )";
  ASSERT_TRUE(tune::parse_model_profile(profile + "[]}", "m.json"));
  const auto deep = tune::parse_model_profile(profile + nested_arrays(80000) + "}", "m.json");
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().message,
            "m.json: nesting deeper than 64 levels at byte " + std::to_string(profile.size() + 64));
}

// At the limit the structure is read, and the reader's own schema check answers.
TEST(JsonReaders, NestingAtTheLimitReachesTheSchemaCheck) {
  const std::string at_limit = R"({"schema": "x", "z": )" + nested_arrays(63) + "}";
  const std::string past = R"({"schema": "x", "z": )" + nested_arrays(64) + "}";
  for (const Reader& r : readers()) {
    const std::string e = r.read(at_limit);
    EXPECT_FALSE(e.empty()) << r.name;
    EXPECT_FALSE(contains(e, "nesting")) << r.name << ": " << e;
    EXPECT_TRUE(contains(r.read(past), "nesting deeper than 64 levels at byte 85")) << r.name;
  }
}

TEST(JsonReaders, DuplicateKeysAreStillRefused) {
  const std::string dup = R"({"schema": "x", "rows": [], "schema": "y"})";
  for (const Reader& r : readers()) {
    EXPECT_TRUE(
        contains(r.read(dup), "duplicate key 'schema' in an object (each key may appear once)"))
        << r.name << ": " << r.read(dup);
  }
}

// A plan is read into nlohmann::ordered_json, whose objects find a key by a linear scan: an
// object of k keys costs k^2/2 comparisons to build, so a plan's objects hold at most 256.
TEST(JsonReaders, PlanObjectsHoldAtMost256Keys) {
  std::string keys;
  for (int i = 0; i < 257; ++i) keys += ", \"k" + std::to_string(i) + "\": 0";
  const std::string text = R"({"schema": "topotune.plan/1")" + keys + "}";
  EXPECT_TRUE(contains(tune::read_plan_json(text, "p.json").error().message,
                       "p.json: more than 256 keys in one object at byte"));
}

}  // namespace
}  // namespace topotune
