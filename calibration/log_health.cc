#include "calibration/log_health.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "core/string_printf.h"

namespace topotune::tune {
namespace {

constexpr std::int64_t kMiB = 1 << 20;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string size_text(std::int64_t b) {
  std::string buf;
  if (b >= (std::int64_t{1} << 30) && b % (std::int64_t{1} << 30) == 0) {
    buf = string_printf("%lld GiB", static_cast<long long>(b >> 30));
  } else if (b >= kMiB && b % kMiB == 0) {
    buf = string_printf("%lld MiB", static_cast<long long>(b >> 20));
  } else {
    buf = string_printf("%lld B", static_cast<long long>(b));
  }
  return buf;
}

/// The rate that bounds busbw and what to check when a run falls short of the model.
std::pair<std::string, std::string> line_rate_and_hint(const algo::NcclSystem& s) {
  std::string rate;
  if (s.nodes == 1) {
    rate = string_printf("NVLink %.0f GB/s per GPU", s.gpu_intra_bandwidth.gbps_bytes());
    return {rate,
            "check NVLink/NVSwitch (nvidia-smi nvlink -s, nvidia-smi topo -m, fabric manager)"};
  }
  rate =
      string_printf("line rate %d x %.0f Gbps = %.1f GB/s per node", s.nics_per_node,
                    s.nic_bandwidth.value * 8 / 1e9, s.nics_per_node * s.nic_bandwidth.value / 1e9);
  switch (s.nic_class) {
    case algo::NicClass::EfaSrd:
    case algo::NicClass::EfaRdma:
      return {rate,
              "check EFA/GPUDirect RDMA (fi_info -p efa, FI_EFA_USE_DEVICE_RDMA=1, aws-ofi-nccl "
              "loaded in NCCL_DEBUG=INFO)"};
    case algo::NicClass::InfiniBand:
      return {rate,
              "check InfiniBand/GPUDirect RDMA (ibstat port rates, nvidia-peermem, NCCL_IB_HCA, "
              "NET/IB in NCCL_DEBUG=INFO)"};
    case algo::NicClass::Roce:
      return {rate,
              "check RoCE/GPUDirect RDMA (ibstat port rates and link layer Ethernet, "
              "nvidia-peermem, NCCL_IB_HCA and NCCL_IB_GID_INDEX, the net plugin in "
              "NCCL_DEBUG=INFO)"};
    case algo::NicClass::Tcp:
      return {rate,
              "check the sockets NCCL uses (NCCL_SOCKET_IFNAME, NET/Socket in NCCL_DEBUG=INFO)"};
    case algo::NicClass::Tcpx:
    case algo::NicClass::Tcpxo:
      return {rate,
              "check the GPUDirect-TCPX/TCPXO plugin and its receive daemon (NET/GPUDirectTCPX or "
              "NET/FasTrak in NCCL_DEBUG=INFO, the plugin's environment profile sourced)"};
  }
  return {rate, ""};
}

/// "H100" of "NVIDIA H100 80GB HBM3" or "H100-SXM5-80GB": 1-2 capitals then 2-3 digits.
std::string gpu_family(const std::string& name) {
  std::size_t i = 0;
  while (i < name.size()) {
    while (i < name.size() && !std::isalnum(static_cast<unsigned char>(name[i]))) ++i;
    std::size_t j = i;
    while (j < name.size() && std::isalnum(static_cast<unsigned char>(name[j]))) ++j;
    const std::string tok = name.substr(i, j - i);
    std::size_t k = 0;
    while (k < tok.size() && std::isupper(static_cast<unsigned char>(tok[k]))) ++k;
    std::size_t d = k;
    while (d < tok.size() && std::isdigit(static_cast<unsigned char>(tok[d]))) ++d;
    if (k >= 1 && k <= 2 && d - k >= 2 && d - k <= 3) return tok.substr(0, d);
    i = j;
  }
  return "";
}

}  // namespace

HealthVerdict judge_health(const std::vector<HealthPoint>& points, const algo::NcclSystem& sys) {
  std::vector<HealthPoint> big;
  for (const HealthPoint& p : points) {
    if (p.bytes >= kMiB && p.predicted_busbw > 0) big.push_back(p);
  }
  HealthVerdict v;
  if (big.empty()) {
    v.text = "no sizes >= 1 MiB: no verdict (small sizes are latency-bound)";
    return v;
  }
  std::sort(big.begin(), big.end(),
            [](const HealthPoint& a, const HealthPoint& b) { return a.bytes < b.bytes; });
  // The longest run of low sizes that reaches the largest size: a fabric problem caps the
  // bandwidth regime, so it shows from some size up.
  std::size_t first = big.size();
  while (first > 0 && big[first - 1].measured_busbw < kLowShare * big[first - 1].predicted_busbw)
    --first;
  std::vector<double> errors, shares;
  for (const HealthPoint& p : big)
    errors.push_back(std::abs(p.measured_busbw / p.predicted_busbw - 1));
  const double med = median(errors);
  const auto [rate, hint] = line_rate_and_hint(sys);
  std::string line;
  if (first < big.size() && (big.size() - first >= 2 || big.size() == 1)) {
    for (std::size_t i = first; i < big.size(); ++i)
      shares.push_back(big[i].measured_busbw / big[i].predicted_busbw);
    v.underperforming = true;
    v.from_bytes = big[first].bytes;
    v.share = median(shares);
    const HealthPoint& last = big.back();
    line = string_printf(
        "underperforming: busbw at %.0f %% of predicted from %s (%.1f vs %.1f GB/s at "
        "%s; %s): %s",
        100 * v.share, size_text(v.from_bytes).c_str(), last.measured_busbw, last.predicted_busbw,
        size_text(last.bytes).c_str(), rate.c_str(), hint.c_str());
  } else if (med <= kExpectedError) {
    v.healthy = true;
    line = string_printf(
        "healthy: within the model's expected error (median |busbw error| %.1f %% <= "
        "%.0f %% for sizes >= 1 MiB; %s)",
        100 * med, 100 * kExpectedError, rate.c_str());
  } else {
    line = string_printf(
        "unclear: median |busbw error| %.1f %% is outside the model's expected %.0f %%, "
        "but no size range is uniformly low (%s)",
        100 * med, 100 * kExpectedError, rate.c_str());
  }
  v.text = line;
  return v;
}

std::vector<std::string> log_contradictions(const LogOrigin& log, const topo::ClusterSpec& spec,
                                            bool nodes_given) {
  std::vector<std::string> out;
  const std::string want = gpu_family(spec.instance.gpu.model);
  for (const std::string& name : log.gpu_names) {
    const std::string got = gpu_family(name);
    if (!want.empty() && !got.empty() && got != want) {
      out.push_back("the log's GPUs are '" + name + "' but " + spec.instance.name + " has " +
                    spec.instance.gpu.model);
    }
  }
  if (nodes_given && log.hosts && *log.hosts != spec.hosts) {
    out.push_back("the log's Rank lines name " + std::to_string(*log.hosts) +
                  " host(s) but --nodes is " + std::to_string(spec.hosts) +
                  " (right only when hosts share one NVLink domain, e.g. a GB200/GB300 rack "
                  "described as one node)");
  }
  return out;
}

}  // namespace topotune::tune
