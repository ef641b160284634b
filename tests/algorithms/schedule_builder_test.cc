// ScheduleBuilder's two ways in: add() one transfer at a time and the bulk TransferWriter.
// Both must produce the same schedule; both must make build() refuse a broken transfer with
// validate()'s message (the builder checks transfers as they are added and rereads them only
// then, so these tests fail if that check lets one through); misuse of a writer aborts.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "algorithms/schedule/schedule_json.h"
#include "algorithms/schedule/transfer_writer.h"
#include "algorithms/schedule/validate.h"

namespace topotune::sched {
namespace {

CollectiveSpec spec_of(int ranks, std::int64_t bytes) {
  CollectiveSpec s;
  s.ranks = ranks;
  s.bytes = Bytes(bytes);
  return s;
}

Slice sl(std::int64_t off, std::int64_t size) { return Slice{Bytes(off), Bytes(size)}; }
EndpointId ep(int e) { return EndpointId(e); }

struct Planned {
  EndpointId src, dst;
  Slice slice;
  bool reduce;
  std::vector<TransferId> deps;
  int channel;
};

// Valid random transfers on 5 ranks and 400 bytes, each with 0..3 earlier dependencies.
std::vector<Planned> random_plan(std::size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Planned> out;
  for (std::size_t i = 0; i < count; ++i) {
    Planned p;
    const int src = static_cast<int>(rng() % 5);
    p.src = ep(src);
    p.dst = ep((src + 1 + static_cast<int>(rng() % 4)) % 5);
    const std::int64_t off = 4 * static_cast<std::int64_t>(rng() % 100);
    p.slice = sl(off, 4 * static_cast<std::int64_t>(rng() % (1 + (400 - off) / 4)));
    p.reduce = rng() % 2 == 0;
    const std::size_t ndeps = i == 0 ? 0 : rng() % 4;
    for (std::size_t k = 0; k < ndeps; ++k)
      p.deps.push_back(TransferId(static_cast<int>(rng() % i)));
    p.channel = static_cast<int>(rng() % 3);
    out.push_back(p);
  }
  return out;
}

void expect_same(const Schedule& a, const Schedule& b) {
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.num_deps(), b.num_deps());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Transfer& x = a.transfers()[i];
    const Transfer& y = b.transfers()[i];
    EXPECT_EQ(x.src, y.src) << i;
    EXPECT_EQ(x.dst, y.dst) << i;
    EXPECT_EQ(x.slice, y.slice) << i;
    EXPECT_EQ(x.reduce, y.reduce) << i;
    EXPECT_EQ(x.channel, y.channel) << i;
    EXPECT_EQ(x.dep_end, y.dep_end) << i;
    const auto dx = a.deps(TransferId(static_cast<int>(i)));
    const auto dy = b.deps(TransferId(static_cast<int>(i)));
    EXPECT_TRUE(std::equal(dx.begin(), dx.end(), dy.begin(), dy.end())) << i;
  }
}

// Writes plan[i] through `w`, using the fixed-size overload where the count allows.
void write_one(TransferWriter& w, const Planned& p) {
  const auto& d = p.deps;
  if (d.size() == 1) {
    w.add(p.src, p.dst, p.slice, p.reduce, {d[0]}, p.channel);
  } else if (d.size() == 2) {
    w.add(p.src, p.dst, p.slice, p.reduce, {d[0], d[1]}, p.channel);
  } else {
    w.add(p.src, p.dst, p.slice, p.reduce, d, p.channel);
  }
}

TEST(ScheduleBuilder, WriterBuildsWhatAddBuilds) {
  const std::vector<Planned> plan = random_plan(500, 7);
  ScheduleBuilder one(spec_of(5, 400), "t");
  for (const Planned& p : plan) one.add(p.src, p.dst, p.slice, p.reduce, p.deps, p.channel);
  // The same transfers, alternating: 100 by add(), 100 by a writer with more room than used...
  ScheduleBuilder bulk(spec_of(5, 400), "t");
  for (std::size_t first = 0; first < plan.size(); first += 100) {
    if (first / 100 % 2 == 0) {
      for (std::size_t i = first; i < first + 100; ++i) {
        bulk.add(plan[i].src, plan[i].dst, plan[i].slice, plan[i].reduce, plan[i].deps,
                 plan[i].channel);
      }
    } else {
      TransferWriter w = bulk.write(150, 400);
      EXPECT_EQ(w.next_id(), TransferId(static_cast<int>(first)));
      for (std::size_t i = first; i < first + 100; ++i) write_one(w, plan[i]);
    }  // ...which the writer's destructor gives back.
  }
  EXPECT_EQ(bulk.size(), plan.size());
  auto a = std::move(one).build();
  auto b = std::move(bulk).build();
  ASSERT_TRUE(a) << a.error().message;
  ASSERT_TRUE(b) << b.error().message;
  expect_same(*a, *b);
}

TEST(ScheduleBuilder, WriterWithExactRoom) {
  ScheduleBuilder b(spec_of(2, 8), "t");
  b.reserve(2, 1);
  {
    TransferWriter w = b.write(2, 1);
    const TransferId first = w.add(ep(0), ep(1), sl(0, 4), true, {});
    EXPECT_EQ(w.add(ep(1), ep(0), sl(4, 4), true, {first}), TransferId(1));
    w.finish();
    w.finish();  // idempotent
  }
  auto s = std::move(b).build();
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->size(), 2u);
  ASSERT_EQ(s->deps(TransferId(1)).size(), 1u);
  EXPECT_EQ(s->deps(TransferId(1))[0], TransferId(0));
  EXPECT_TRUE(s->deps(TransferId(0)).empty());
}

// Each broken transfer is the second one (index 1) of its schedule; the expected text is
// validate()'s message for that rule (validate.cc).
struct Broken {
  EndpointId src, dst;
  Slice slice;
  const char* message;
};
const Broken kBroken[] = {
    {ep(1), ep(1), sl(0, 4), "transfer 1 sends to itself"},
    {ep(0), ep(1), sl(4, 8), "transfer 1 moves a slice outside the buffer"},
    {ep(0), ep(1), sl(-4, 4), "transfer 1 moves a slice outside the buffer"},
    {ep(0), ep(1), sl(0, -4), "transfer 1 moves a slice outside the buffer"},
    {ep(0), ep(1), sl(2, 4), "transfer 1 splits an element"},
    {ep(0), ep(1), sl(0, 3), "transfer 1 splits an element"},
};

TEST(ScheduleBuilder, AddedBrokenTransferFailsBuildWithValidateMessage) {
  for (const Broken& k : kBroken) {
    ScheduleBuilder b(spec_of(2, 8), "t");
    b.add(ep(0), ep(1), sl(0, 4), true);
    b.add(k.src, k.dst, k.slice, false);
    b.add(ep(1), ep(0), sl(4, 4), true);
    auto s = std::move(b).build();
    ASSERT_FALSE(s) << k.message;
    EXPECT_EQ(s.error().code, Errc::InvalidSchedule);
    EXPECT_EQ(s.error().message, k.message);
  }
}

TEST(ScheduleBuilder, WrittenBrokenTransferFailsBuildWithValidateMessage) {
  for (const Broken& k : kBroken) {
    ScheduleBuilder b(spec_of(2, 8), "t");
    {
      TransferWriter w = b.write(3, 0);
      w.add(ep(0), ep(1), sl(0, 4), true, {});
      w.add(k.src, k.dst, k.slice, false, {});
      w.add(ep(1), ep(0), sl(4, 4), true, {});
    }
    auto s = std::move(b).build();
    ASSERT_FALSE(s) << k.message;
    EXPECT_EQ(s.error().message, k.message);
  }
}

// transfer_breaks_rules against validate() itself, run by the JSON reader on a one-transfer
// schedule: the same verdict for slices around every boundary of an 8-byte fp32 buffer.
TEST(ScheduleBuilder, RulesPredicateAgreesWithValidate) {
  const std::int64_t values[] = {
      -8, -4, -1, 0, 1, 2, 3, 4, 5, 7, 8, 9, 12, INT64_MAX / 2, INT64_MAX - 3, INT64_MAX};
  int checked = 0;
  for (int dst : {0, 1}) {
    for (std::int64_t off : values) {
      for (std::int64_t size : values) {
        const std::string text =
            R"({"schema": "topotune.schedule/1", "spec": {"collective": "allreduce", "ranks": 2,
            "bytes": 8, "dtype": "fp32"}, "transfers": [{"id": 0, "src": 0, "dst": )" +
            std::to_string(dst) + R"(, "offset": )" + std::to_string(off) + R"(, "bytes": )" +
            std::to_string(size) + R"(, "reduce": true}]})";
        const bool valid = parse_schedule_json(text).has_value();
        EXPECT_EQ(transfer_breaks_rules(ep(0), ep(dst), sl(off, size), 8, 3), !valid)
            << "dst " << dst << " offset " << off << " size " << size;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 2 * 16 * 16);
}

using ScheduleBuilderDeathTest = ::testing::Test;

TEST(ScheduleBuilderDeathTest, WriterPastItsRoomAborts) {
  EXPECT_DEATH(
      {
        ScheduleBuilder b(spec_of(2, 8), "t");
        TransferWriter w = b.write(1, 0);
        w.add(ep(0), ep(1), sl(0, 4), true, {});
        w.add(ep(1), ep(0), sl(4, 4), true, {});
      },
      "more transfers than announced");
  EXPECT_DEATH(
      {
        ScheduleBuilder b(spec_of(2, 8), "t");
        TransferWriter w = b.write(2, 0);
        const TransferId a = w.add(ep(0), ep(1), sl(0, 4), true, {});
        w.add(ep(1), ep(0), sl(4, 4), true, {a});
      },
      "more deps than announced");
}

TEST(ScheduleBuilderDeathTest, WriterForwardDependencyAbortsAtFinish) {
  EXPECT_DEATH(
      {
        ScheduleBuilder b(spec_of(2, 8), "t");
        TransferWriter w = b.write(1, 1);
        w.add(ep(0), ep(1), sl(0, 4), true, {TransferId(0)});  // itself: not backwards
        w.finish();
      },
      "does not point backwards");
  EXPECT_DEATH(
      {
        ScheduleBuilder b(spec_of(2, 8), "t");
        TransferWriter w = b.write(1, 0);
        w.add(ep(0), ep(2), sl(0, 4), true, {});  // endpoint 2 does not exist
      },
      "does not exist");
}

TEST(ScheduleBuilderDeathTest, AddWhileWriterOpenAborts) {
  EXPECT_DEATH(
      {
        ScheduleBuilder b(spec_of(2, 8), "t");
        TransferWriter w = b.write(1, 0);
        b.add(ep(0), ep(1), sl(0, 4), true);
      },
      "TransferWriter is open");
}

}  // namespace
}  // namespace topotune::sched
