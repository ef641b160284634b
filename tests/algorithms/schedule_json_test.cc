// JSON I/O: writing then reading gives back the same schedule; malformed input gets a clear
// error naming the place.
#include "algorithms/schedule/schedule_json.h"

#include <gtest/gtest.h>

#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "algorithms/schedule/interpreter.h"

namespace topotune::algo {
namespace {

sched::Schedule make(const std::string& name, AlgorithmOptions o, int ranks, int gph,
                     std::int64_t bytes) {
  sched::CollectiveSpec spec;
  spec.ranks = ranks;
  spec.bytes = Bytes(bytes);
  auto layout = flat_layout(ranks, gph);
  auto algo = make_algorithm(name, o);
  auto s = (*algo)->generate(spec, *layout);
  EXPECT_TRUE(s) << s.error().message;
  return std::move(s).value();
}

void expect_same(const sched::Schedule& a, const sched::Schedule& b) {
  EXPECT_EQ(a.algorithm(), b.algorithm());
  EXPECT_EQ(a.spec().collective, b.spec().collective);
  EXPECT_EQ(a.spec().ranks, b.spec().ranks);
  EXPECT_EQ(a.spec().bytes, b.spec().bytes);
  EXPECT_EQ(a.spec().dtype, b.spec().dtype);
  ASSERT_EQ(a.num_endpoints(), b.num_endpoints());
  for (int e = a.num_ranks(); e < a.num_endpoints(); ++e) {
    EXPECT_EQ(a.endpoint(EndpointId(e)).host, b.endpoint(EndpointId(e)).host);
    EXPECT_EQ(a.endpoint(EndpointId(e)).executor, b.endpoint(EndpointId(e)).executor);
  }
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto& x = a.transfers()[i];
    const auto& y = b.transfers()[i];
    EXPECT_EQ(x.src, y.src);
    EXPECT_EQ(x.dst, y.dst);
    EXPECT_EQ(x.slice, y.slice);
    EXPECT_EQ(x.reduce, y.reduce);
    EXPECT_EQ(x.channel, y.channel);
    const auto da = a.deps(TransferId(static_cast<std::int32_t>(i)));
    const auto db = b.deps(TransferId(static_cast<std::int32_t>(i)));
    ASSERT_EQ(da.size(), db.size());
    for (std::size_t d = 0; d < da.size(); ++d) EXPECT_EQ(da[d], db[d]);
  }
}

TEST(ScheduleJson, RoundTripsRingWithChannels) {
  AlgorithmOptions o;
  o.channels = 2;
  o.chunks = 3;
  const auto s = make("ring", o, 5, 1, 4 * 37);
  const std::string text = sched::schedule_to_json(s);
  auto back = sched::parse_schedule_json(text, "ring.json");
  ASSERT_TRUE(back) << back.error().message;
  expect_same(s, *back);
  EXPECT_EQ(sched::schedule_to_json(*back), text);
  EXPECT_TRUE(sched::verify(*back));
}

TEST(ScheduleJson, RoundTripsCpuServerEndpoints) {
  AlgorithmOptions o;
  o.ps_placement = PsPlacement::Cpu;
  const auto s = make("ps", o, 6, 2, 4 * 100);
  ASSERT_EQ(s.num_endpoints(), 9);
  const std::string text = sched::schedule_to_json(s);
  EXPECT_NE(text.find("\"kind\": \"host_cpu\""), std::string::npos);
  auto back = sched::parse_schedule_json(text, "ps.json");
  ASSERT_TRUE(back) << back.error().message;
  expect_same(s, *back);
}

void expect_error(const std::string& text, const std::string& needle) {
  auto r = sched::parse_schedule_json(text, "t.json");
  ASSERT_FALSE(r) << text;
  EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("t.json"), std::string::npos) << r.error().message;
}

const char* kHead =
    R"({"schema": "topotune.schedule/1", "spec": {"collective": "allreduce", "ranks": 2,
        "bytes": 8, "dtype": "fp32"}, )";

TEST(ScheduleJson, ParseErrorsAreClear) {
  expect_error("{\"schema\": ", "malformed JSON");
  expect_error(R"({"schema": "other/2"})", "unsupported");
  expect_error(std::string(kHead) + R"("transfers": [{"id": 0, "src": 0, "dst": 1}]})",
               "transfers[0]: missing \"offset\"");
  expect_error(std::string(kHead) +
                   R"("transfers": [{"id": 0, "src": 0, "dst": 1, "offset": 0, "bytes": 8,
                       "reduce": true, "deps": [0]}]})",
               "transfers[0].deps[0]");
  expect_error(std::string(kHead) +
                   R"("transfers": [{"id": 0, "src": 0, "dst": 1, "offset": 4, "bytes": 8,
                       "reduce": "yes"}]})",
               "transfers[0].reduce");
  expect_error(std::string(kHead) +
                   R"("transfers": [{"id": 0, "src": 0, "dst": 1, "offset": 4, "bytes": 8,
                       "reduce": true}]})",
               "outside the buffer");
  expect_error(R"({"schema": "topotune.schedule/1", "spec": {"collective": "allreduce",
                 "ranks": 2, "bytes": 6, "dtype": "fp32"}, "transfers": []})",
               "not a multiple");
}

TEST(ScheduleJson, DuplicateKeysAreRefused) {
  // nlohmann::json keeps the last value: "ranks": 2 then 64 would silently read 64.
  expect_error(R"({"schema": "topotune.schedule/1", "spec": {"collective": "allreduce",
                 "ranks": 2, "ranks": 64, "bytes": 8, "dtype": "fp32"}, "transfers": []})",
               "duplicate key 'ranks'");
}

}  // namespace
}  // namespace topotune::algo
