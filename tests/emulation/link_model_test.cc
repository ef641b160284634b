// The shaped link's physical model, against figures worked out by hand.

#include "emulation/link_model.h"

#include <gtest/gtest.h>

namespace topotune::emu {
namespace {

TEST(LinkModel, PayloadRateIsTheWireRateLessFramingAndAcks) {
  // 200 Mbit/s = 25e6 B/s on the wire. Payload per frame 1448/1514 = 0.956407; the receiver's
  // pure ACKs, 66 B per two full frames, take 1 + 66/3028 = 1.021797 of its egress:
  // 25e6 x 0.956407 / 1.021797 = 23.4000e6 B/s (187.2 Mbit/s, emulate_cli's figure).
  const BytesPerSec r = effective_payload_rate(gbit_per_sec(0.2));
  EXPECT_NEAR(r.value, 25e6 * 1448.0 / 1514.0 / (1.0 + 66.0 / 3028.0), 1e-6);
  EXPECT_NEAR(r.value, 23.40e6, 0.01e6);
}

TEST(LinkModel, TbfBurstAndLimitHaveFloors) {
  // 200 Mbit/s: 1 ms of rate is 25,000 B < 64 KiB (the floor); 25 ms is 625,000 B.
  const TbfShape slow = tbf_shape(gbit_per_sec(0.2));
  EXPECT_EQ(slow.rate_bits, 200000000);
  EXPECT_EQ(slow.burst_bytes, 65536);
  EXPECT_EQ(slow.limit_bytes, 625000);
  // 50 Mbit/s: 25 ms is 156,250 B < 192 KiB: the queue's floor.
  EXPECT_EQ(tbf_shape(gbit_per_sec(0.05)).limit_bytes, 196608);
  // 10 Gbit/s = 1.25e9 B/s: 1 ms is 1,250,000 B, 25 ms 31,250,000 B, both above the floors.
  const TbfShape fast = tbf_shape(gbit_per_sec(10));
  EXPECT_EQ(fast.rate_bits, 10000000000);
  EXPECT_EQ(fast.burst_bytes, 1250000);
  EXPECT_EQ(fast.limit_bytes, 31250000);
}

}  // namespace
}  // namespace topotune::emu
