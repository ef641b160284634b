#include "emulation/link_model.h"

#include <algorithm>

namespace topotune::emu {

BytesPerSec effective_payload_rate(BytesPerSec wire_rate) {
  return BytesPerSec(wire_rate.value * kTcpPayloadShare / kAckOverhead);
}

TbfShape tbf_shape(BytesPerSec rate) {
  const auto bytes_per_s = static_cast<std::int64_t>(rate.value);
  TbfShape t;
  t.rate_bits = static_cast<std::int64_t>(rate.value * 8.0);
  t.burst_bytes = std::max<std::int64_t>(65536, bytes_per_s / 1000);
  t.limit_bytes = std::max<std::int64_t>(196608, bytes_per_s / 40);  // 25 ms
  return t;
}

}  // namespace topotune::emu
