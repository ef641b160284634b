#pragma once
// The physical model of one tbf-shaped veth link of the emulated cluster: what it delivers to
// MPI payload, and the token-bucket parameters that make it a full-duplex link of a given
// rate. Numbers and their derivation: docs/reference/testbed.md (§A.5, §A.7, pitfall 5).

#include <cstdint>

#include "core/units.h"

namespace topotune::emu {

/// TCP payload share of a shaped Ethernet frame: 1448 bytes of payload (MSS with timestamps)
/// per 1514-byte frame that tbf counts.
inline constexpr double kTcpPayloadShare = 1448.0 / 1514.0;
/// Pure ACKs of one-way connections share the receiver's NIC egress: 66 B per 2 x 1514 B.
inline constexpr double kAckOverhead = 1.0 + 66.0 / (2.0 * 1514.0);

/// The bandwidth a link shaped to `wire_rate` delivers to MPI payload, per direction.
BytesPerSec effective_payload_rate(BytesPerSec wire_rate);

/// One tbf qdisc: `tc qdisc replace dev D root tbf rate <rate_bits>bit burst <burst> limit
/// <limit>`.
struct TbfShape {
  std::int64_t rate_bits = 0;    ///< bits per second
  std::int64_t burst_bytes = 0;  ///< bucket size: max(64 KiB, 1 ms of rate)
  std::int64_t limit_bytes = 0;  ///< queue: max(192 KiB, 25 ms of rate)
};

/// The tbf parameters for a link of `rate` (testbed.md pitfall 5: a smaller burst caps the
/// rate below the setting, a smaller limit drops packets under TCP's bursts). The queue is a
/// time, 25 ms of the rate: a longer one (1 MiB was 120 ms at 70 Mbit/s) holds the ACKs of the
/// reverse direction behind a standing queue of data until TCP's retransmission timer fires
/// (the two-rack sharded check's lone reduce-scatters: 66 of 169 segments retransmitted, none
/// dropped by tbf); 10 ms of the rate slowed HSDP's allreduce instead.
TbfShape tbf_shape(BytesPerSec rate);

}  // namespace topotune::emu
