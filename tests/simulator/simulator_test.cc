// Simulator on hand-built networks (fake_network.h): every expected time is derived in a comment
// from the model in simulator.h (ready -> route latency -> max-min shared bandwidth phase ->
// reduction -> complete).

#include "simulator/simulator.h"

#include <gtest/gtest.h>

#include <cstring>

#include "tests/simulator/fake_network.h"
#include "tests/simulator/ring_schedule.h"

namespace topotune::sim {
namespace {

using testing::FakeNetwork;
using testing::iota_ring;
using testing::ring_allreduce;
using testing::star;

constexpr double kRel = 1e-12;  // "equal to rounding"

sched::Schedule one_transfer(int ranks, Bytes bytes, bool reduce, int src = 0, int dst = 1) {
  sched::CollectiveSpec spec;
  spec.ranks = ranks;
  spec.bytes = bytes;
  sched::ScheduleBuilder b(spec, "one");
  b.add(RankId(src), RankId(dst), sched::Slice{Bytes(0), bytes}, reduce);
  return std::move(b).build().value();
}

TEST(Simulator, SingleTransferIsLatencyPlusBytesOverBandwidth) {
  // Route up(0), down(1): latency 2 x 1 us, bottleneck 10 GB/s. 1e9 bytes: 2e-6 + 0.1 s.
  const FakeNetwork net = star(2, 10e9, 1e-6);
  const auto r = Simulator(net).run(one_transfer(2, Bytes(1000000000), false));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NEAR(r->makespan.value, 2e-6 + 0.1, 0.1 * kRel);
  ASSERT_EQ(r->transfers.size(), 1u);
  EXPECT_EQ(r->transfers[0].ready.value, 0);
  EXPECT_EQ(r->transfers[0].end.value, r->makespan.value);
  // Both links carried the bytes and were active for the bandwidth phase (0.1 s) only, at full
  // rate, so busy (bytes/capacity) is 0.1 s too.
  EXPECT_EQ(r->links[0].bytes.value, 1000000000);
  EXPECT_EQ(r->links[3].bytes.value, 1000000000);
  EXPECT_EQ(r->links[1].bytes.value, 0);
  EXPECT_NEAR(r->links[0].busy.value, 0.1, 0.1 * kRel);
  EXPECT_NEAR(r->links[0].active.value, 0.1, 0.1 * kRel);
}

TEST(Simulator, ReductionModels) {
  // 1e9 bytes, link 10 GB/s, reduction 4 GB/s at the receiver, latency 0.
  //   Serial:     1e9/10e9 + 1e9/4e9 = 0.1 + 0.25 = 0.35 s
  //   Overlapped: 1e9 / min(10e9, 4e9) = 0.25 s
  //   Ignore:     0.1 s
  const FakeNetwork net = star(2, 10e9, 0, 4e9);
  const auto s = one_transfer(2, Bytes(1000000000), true);
  const std::pair<ReductionModel, double> cases[] = {{ReductionModel::Serial, 0.35},
                                                     {ReductionModel::Overlapped, 0.25},
                                                     {ReductionModel::Ignore, 0.1}};
  for (const auto& [model, expected] : cases) {
    SimOptions o;
    o.reduction = model;
    const auto r = Simulator(net, o).run(s);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_NEAR(r->makespan.value, expected, expected * kRel) << static_cast<int>(model);
  }
}

TEST(Simulator, UncontendedRingAllreduceEqualsClosedForm) {
  // Star of n ranks: every ring hop crosses its own up and down link, so nothing is shared.
  // Per step: latency 2L, chunk c = S/n over B; reduce-scatter steps add c/gamma (Serial):
  //   T = 2(n-1) (2L + c/B) + (n-1) c/gamma.
  const double bw = 25e9, lat = 3e-6, gamma = 200e9;
  for (int n : {2, 3, 4, 8, 16}) {
    for (std::int64_t elems_per_rank : {1, 1024, 262144}) {
      const Bytes bytes(4 * elems_per_rank * n);
      const FakeNetwork net = star(n, bw, lat, gamma);
      const auto r = Simulator(net).run(ring_allreduce(n, bytes, iota_ring(n)));
      ASSERT_TRUE(r) << r.error().message;
      const double c = bytes.as_double() / n;
      const double expected = 2 * (n - 1) * (2 * lat + c / bw) + (n - 1) * c / gamma;
      EXPECT_NEAR(r->makespan.value, expected, expected * 1e-12)
          << "n=" << n << " S=" << bytes.value;
      // nccl-tests figures: algbw = S/t, busbw = algbw * 2(n-1)/n.
      EXPECT_DOUBLE_EQ(r->algbw.value, bytes.as_double() / r->makespan.value);
      EXPECT_DOUBLE_EQ(r->busbw.value, r->algbw.value * 2.0 * (n - 1) / n);
    }
  }
}

TEST(Simulator, IncastSharesTheReceiversLinkAndReallocatesWhenFlowsLeave) {
  // Ranks 1, 2, 3 send S, 2S, 3S to rank 0 at once; they share down(0) (capacity B), their own
  // up links are private. Latency 0, no reduction.
  //   [0, 3S/B): three flows at B/3; each moves S. Flow 1 is done at t1 = 3S/B.
  //   then two flows at B/2 with S and 2S left: flow 2 done after 2S/B, t2 = 5S/B.
  //   then flow 3 alone at B with S left: t3 = 6S/B (= 6S total bytes / B: link always full).
  const double bw = 1e9, S = 1e6;
  const FakeNetwork net = star(4, bw, 0);
  sched::CollectiveSpec spec;
  spec.ranks = 4;
  spec.bytes = Bytes(12000000);
  sched::ScheduleBuilder b(spec, "incast");
  for (int k = 1; k <= 3; ++k) {
    b.add(RankId(k), RankId(0), sched::Slice{Bytes(0), Bytes(static_cast<std::int64_t>(k * S))},
          false);
  }
  const auto r = Simulator(net).run(std::move(b).build().value());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NEAR(r->transfers[0].end.value, 3 * S / bw, 1e-15);
  EXPECT_NEAR(r->transfers[1].end.value, 5 * S / bw, 1e-15);
  EXPECT_NEAR(r->transfers[2].end.value, 6 * S / bw, 1e-15);
  // down(0) = link 1 was full all along and carried 6S: busy = active = 6S/B, the top
  // bottleneck. Sender 3's up link carried 3S at B/3, then B/2, then B: active 6S/B as well,
  // but busy only 3S/B.
  EXPECT_NEAR(r->links[1].busy.value, 6 * S / bw, 1e-15);
  EXPECT_NEAR(r->links[1].active.value, 6 * S / bw, 1e-15);
  EXPECT_NEAR(r->links[6].active.value, 6 * S / bw, 1e-15);
  EXPECT_NEAR(r->links[6].busy.value, 3 * S / bw, 1e-15);
  EXPECT_EQ(r->links[1].bytes.value, static_cast<std::int64_t>(6 * S));
  EXPECT_EQ(r->bottlenecks(1).at(0), LinkId(1));
  EXPECT_NEAR(r->utilisation(LinkId(1)), 1.0, 1e-12);
}

TEST(Simulator, ConcurrentReductionsShareTheDevice) {
  // Ranks 1 and 2 each send a reduce of S to rank 0 over private links... except down(0) is
  // shared: B/2 each, delivered together at 2S/B; then both reductions share rank 0's gamma:
  // gamma/2 each, done 2S/gamma later. T = 2S/B + 2S/gamma.
  const double bw = 10e9, gamma = 5e9, S = 1e8;
  const FakeNetwork net = star(3, bw, 0, gamma);
  sched::CollectiveSpec spec;
  spec.ranks = 3;
  spec.bytes = Bytes(static_cast<std::int64_t>(S));
  sched::ScheduleBuilder b(spec, "two-reduces");
  b.add(RankId(1), RankId(0), sched::Slice{Bytes(0), spec.bytes}, true);
  b.add(RankId(2), RankId(0), sched::Slice{Bytes(0), spec.bytes}, true);
  const auto r = Simulator(net).run(std::move(b).build().value());
  ASSERT_TRUE(r) << r.error().message;
  const double expected = 2 * S / bw + 2 * S / gamma;
  EXPECT_NEAR(r->makespan.value, expected, expected * kRel);
}

// Two hosts x 2 GPUs, one NIC per host shared by both GPUs (the p4d PCIe-switch pattern), plus
// private GPU<->NIC links. A cross-host route: gpu-up, nic-out(h), nic-in(h'), gpu-down.
FakeNetwork shared_nic_pair(int hosts, double pcie, double nic) {
  FakeNetwork net;
  const int gpus = 2;
  for (int r = 0; r < hosts * gpus; ++r) net.add_rank(net.add_device());
  std::vector<int> up, down, out, in;
  for (int r = 0; r < hosts * gpus; ++r) {
    up.push_back(net.add_link(pcie, 0));
    down.push_back(net.add_link(pcie, 0));
  }
  for (int h = 0; h < hosts; ++h) {
    out.push_back(net.add_link(nic, 0));
    in.push_back(net.add_link(nic, 0));
  }
  for (int a = 0; a < hosts * gpus; ++a) {
    for (int b = 0; b < hosts * gpus; ++b) {
      if (a / gpus == b / gpus) continue;
      net.set_route(a, b, {up[a], out[a / gpus], in[b / gpus], down[b]});
    }
  }
  return net;
}

TEST(Simulator, TwoRingsOverOneNicTakeTwiceAsLongAsOne) {
  // Ring A over GPU 0 of each host (ranks 0, 2, 4, 6), ring B over GPU 1 (1, 3, 5, 7); each
  // allreduces S. Latency 0, PCIe faster than the NIC, no reduction cost, so one ring alone
  // takes T1 = 2(n-1) (S/n)/nic. Together, every step both rings cross every NIC at once and
  // get nic/2 each: T2 = 2(n-1) (S/n)/(nic/2) = 2 T1.
  const int hosts = 4, n = 4;
  const double S = 64e6;
  const FakeNetwork net = shared_nic_pair(hosts, 50e9, 12.5e9);
  sched::CollectiveSpec spec;
  spec.ranks = 8;
  spec.bytes = Bytes(static_cast<std::int64_t>(S));
  const sched::Slice whole{Bytes(0), spec.bytes};
  SimOptions o;
  o.reduction = ReductionModel::Ignore;

  sched::ScheduleBuilder one(spec, "ring A");
  testing::add_ring_allreduce(one, {0, 2, 4, 6}, whole, 0);
  const auto r1 = Simulator(net, o).run(std::move(one).build().value());
  sched::ScheduleBuilder two(spec, "rings A+B");
  testing::add_ring_allreduce(two, {0, 2, 4, 6}, whole, 0);
  testing::add_ring_allreduce(two, {1, 3, 5, 7}, whole, 1);
  const auto r2 = Simulator(net, o).run(std::move(two).build().value());
  ASSERT_TRUE(r1 && r2);
  const double t1 = 2 * (n - 1) * (S / n) / 12.5e9;
  EXPECT_NEAR(r1->makespan.value, t1, t1 * kRel);
  EXPECT_NEAR(r2->makespan.value, 2 * t1, t1 * kRel);
}

TEST(Simulator, FlowCapBoundsEachFlow) {
  // A 100 GB/s path with a 1.25 GB/s (10 Gbps) per-flow cap: 1e9 bytes take 0.8 s; with the
  // caps lifted, 0.01 s.
  FakeNetwork net = star(2, 100e9, 0);
  net.set_flow_cap(1.25e9);
  const auto s = one_transfer(2, Bytes(1000000000), false);
  const auto capped = Simulator(net).run(s);
  SimOptions o;
  o.apply_flow_caps = false;
  const auto lifted = Simulator(net, o).run(s);
  ASSERT_TRUE(capped && lifted);
  EXPECT_NEAR(capped->makespan.value, 0.8, 0.8 * kRel);
  EXPECT_NEAR(lifted->makespan.value, 0.01, 0.01 * kRel);
}

TEST(Simulator, ZeroByteTransferCompletesAfterLatency) {
  // Latency 2 x 5 us; nothing to send or reduce.
  const FakeNetwork net = star(2, 1e9, 5e-6, 1e9);
  const auto r = Simulator(net).run(one_transfer(2, Bytes(0), true));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NEAR(r->makespan.value, 1e-5, 1e-18);
  EXPECT_EQ(r->algbw.value, 0);  // S = 0
}

TEST(Simulator, EmptySchedule) {
  const FakeNetwork net = star(1, 1e9, 0);
  sched::CollectiveSpec spec;
  const auto r = Simulator(net).run(sched::ScheduleBuilder(spec, "none").build().value());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->makespan.value, 0);
  EXPECT_EQ(r->algbw.value, 0);
  EXPECT_TRUE(r->bottlenecks(5).empty());
}

TEST(Simulator, RankTheNetworkDoesNotHaveIsAnError) {
  // A 3-rank schedule on a 2-rank network: rank 2 is the first party it cannot place, and the
  // message names the transfer that uses it.
  const FakeNetwork net = star(2, 1e9, 0);  // ranks 0 and 1 only
  const auto r = Simulator(net).run(one_transfer(3, Bytes(64), false, 1, 2));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::InvalidSchedule);
  EXPECT_NE(r.error().message.find("transfer 0 (endpoint 1 -> 2)"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("no rank 2"), std::string::npos) << r.error().message;
}

TEST(Simulator, HostCpuTheNetworkDoesNotHaveIsAnError) {
  FakeNetwork net = star(2, 1e9, 0);
  net.set_host_cpu(0, 2);
  sched::CollectiveSpec spec;
  spec.ranks = 2;
  spec.bytes = Bytes(64);
  sched::ScheduleBuilder b(spec, "ps");
  const EndpointId cpu = b.add_host_cpu(5, RankId(0));
  b.add(EndpointId(0), cpu, sched::Slice{Bytes(0), Bytes(64)}, true);
  const auto r = Simulator(net).run(std::move(b).build().value());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::InvalidSchedule);
}

TEST(Simulator, ZeroCapacityRouteIsAnErrorNotAHang) {
  FakeNetwork net = star(2, 1e9, 0);
  const int dead = net.add_link(0, 0);
  net.set_route(0, 1, {0, dead});
  const auto r = Simulator(net).run(one_transfer(2, Bytes(64), false));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::Internal);
  EXPECT_NE(r.error().message.find("never completed"), std::string::npos) << r.error().message;
}

TEST(Simulator, SameInputTwiceGivesIdenticalResults) {
  // Contended and uneven (sizes not divisible by n, two rings sharing NICs): bit-identical.
  const FakeNetwork net = shared_nic_pair(3, 20e9, 7e9);
  sched::CollectiveSpec spec;
  spec.ranks = 6;
  spec.bytes = Bytes(4 * 1000003);
  sched::ScheduleBuilder b(spec, "mix");
  testing::add_ring_allreduce(b, {0, 2, 4}, sched::Slice{Bytes(0), Bytes(4 * 500001)}, 0);
  testing::add_ring_allreduce(b, {1, 5, 3}, sched::Slice{Bytes(4 * 500001), Bytes(4 * 500002)}, 1);
  const sched::Schedule s = std::move(b).build().value();
  const auto a = Simulator(net).run(s);
  const auto c = Simulator(net).run(s);
  ASSERT_TRUE(a && c);
  EXPECT_EQ(a->makespan.value, c->makespan.value);
  EXPECT_EQ(a->events, c->events);
  ASSERT_EQ(a->transfers.size(), c->transfers.size());
  EXPECT_EQ(0, std::memcmp(a->transfers.data(), c->transfers.data(),
                           a->transfers.size() * sizeof(TransferTiming)));
  for (std::size_t l = 0; l < a->links.size(); ++l) {
    EXPECT_EQ(a->links[l].busy.value, c->links[l].busy.value);
    EXPECT_EQ(a->links[l].active.value, c->links[l].active.value);
    EXPECT_EQ(a->links[l].bytes.value, c->links[l].bytes.value);
  }
  EXPECT_EQ(a->bottlenecks(5), c->bottlenecks(5));
}

}  // namespace
}  // namespace topotune::sim
