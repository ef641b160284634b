#include "core/checked_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/lib/nested_json.h"

namespace topotune {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

using test_support::nested_arrays;
using test_support::nested_objects;

template <class Json>
std::string error_of(const std::string& text, JsonLimits limits = {}) {
  const Expected<Json> j = parse_checked_json<Json>(text, limits);
  return j ? "" : j.error().message;
}

TEST(CheckedJson, DepthAtTheLimitIsRead) {
  const auto arrays = parse_checked_json<json>(nested_arrays(kMaxJsonDepth));
  ASSERT_TRUE(arrays) << arrays.error().message;
  EXPECT_EQ(arrays->dump(), nested_arrays(kMaxJsonDepth));
  const auto objects = parse_checked_json<ordered_json>(nested_objects(kMaxJsonDepth));
  ASSERT_TRUE(objects) << objects.error().message;
  EXPECT_EQ(objects->dump(), nested_objects(kMaxJsonDepth));
}

TEST(CheckedJson, OneLevelPastTheLimitIsRefusedAtItsByte) {
  EXPECT_EQ(error_of<json>(nested_arrays(kMaxJsonDepth + 1)),
            "nesting deeper than 64 levels at byte 65");
  // The 65th object's brace: byte 5 * 65 - 4 = 321.
  EXPECT_EQ(error_of<json>(nested_objects(kMaxJsonDepth + 1)),
            "nesting deeper than 64 levels at byte 321");
  // Leading white space and other values count as bytes like any other.
  EXPECT_EQ(error_of<json>("  [1, " + nested_arrays(3) + ", [[\"[\"]]]", {.max_depth = 2}),
            "nesting deeper than 2 levels at byte 8");
}

// Before this reader, 80,000 levels (a 160 KB file) crashed nlohmann's recursive destructor.
TEST(CheckedJson, EightyThousandLevelsAreRefusedNotACrash) {
  EXPECT_EQ(error_of<json>(nested_arrays(80000)), "nesting deeper than 64 levels at byte 65");
  EXPECT_EQ(error_of<ordered_json>(nested_objects(80000)),
            "nesting deeper than 64 levels at byte 321");
  // Unclosed, as a truncated file would be: still the depth, not a syntax error.
  EXPECT_EQ(error_of<json>(std::string(80000, '[')), "nesting deeper than 64 levels at byte 65");
}

TEST(CheckedJson, DuplicateKeysAreRefusedAtAnyDepth) {
  EXPECT_EQ(error_of<json>(R"({"nodes": 2, "nodes": 64})"),
            "duplicate key 'nodes' in an object (each key may appear once)");
  EXPECT_EQ(error_of<ordered_json>(R"({"a": {"b": [{"c": 1, "c": 2}]}})"),
            "duplicate key 'c' in an object (each key may appear once)");
  EXPECT_EQ(error_of<json>(R"({"": 1, "": 2})"),
            "duplicate key '' in an object (each key may appear once)");
  // The same key in sibling or nested objects is not a duplicate.
  EXPECT_EQ(error_of<json>(R"({"a": {"a": 1}, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]})"), "");
  const std::string long_key(100, 'k');
  EXPECT_EQ(
      error_of<json>("{\"" + long_key + "\": 1, \"" + long_key + "\": 2}"),
      "duplicate key '" + long_key.substr(0, 64) + "...' in an object (each key may appear once)");
}

// Malformed text is reported by Json::parse itself, word for word, even after a duplicate key
// (as the callback parser did): every reader keeps its messages.
TEST(CheckedJson, MalformedTextThrowsWhatParseThrows) {
  for (const std::string text : {R"({"a": 1, "a": 2,})", "[1, 2] x", "", R"({"a" 1})"}) {
    std::string expected;
    try {
      const json j = json::parse(text);
    } catch (const json::parse_error& e) {
      expected = e.what();
    }
    ASSERT_FALSE(expected.empty()) << text;
    try {
      const Expected<json> j = parse_checked_json<json>(text);
      ADD_FAILURE() << "no exception for " << text;
    } catch (const json::parse_error& e) {
      EXPECT_EQ(e.what(), expected);
    }
  }
  EXPECT_THROW((void)parse_checked_json<json>("[1, 2e308]"), json::out_of_range);
}

TEST(CheckedJson, KeysPerObjectWithinTheirLimit) {
  const std::string three = R"({"a": 1, "b": {"x": 1, "y": 2, "z": 3, "w": 4}, "c": 3})";
  EXPECT_EQ(error_of<ordered_json>(three, {.max_object_keys = 4}), "");
  EXPECT_EQ(error_of<ordered_json>(three, {.max_object_keys = 3}),
            "more than 3 keys in one object at byte 42");
  EXPECT_EQ(error_of<ordered_json>(three), "");
}

}  // namespace
}  // namespace topotune
