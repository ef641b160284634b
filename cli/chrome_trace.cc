#include "cli/chrome_trace.h"

#include <cstdio>

#include "core/string_printf.h"

namespace topotune::cli {
namespace {

// Host of an endpoint: ranks live where the topology puts them, CPU servers on their host.
int host_of(const sched::Schedule& s, const topo::Topology& t, int endpoint) {
  const sched::Endpoint e = s.endpoint(EndpointId(endpoint));
  return e.kind == sched::EndpointKind::Rank ? t.host_of(RankId(endpoint)) : e.host;
}

std::string track_name(const sched::Schedule& s, int endpoint) {
  const sched::Endpoint e = s.endpoint(EndpointId(endpoint));
  if (e.kind == sched::EndpointKind::Rank) return "rank " + std::to_string(endpoint);
  return "cpu server (endpoint " + std::to_string(endpoint) + ")";
}

void append_metadata(std::string& out, const sched::Schedule& s, const topo::Topology& t) {
  std::string buf;
  std::vector<bool> host_named(static_cast<std::size_t>(t.num_hosts()), false);
  for (int e = 0; e < s.num_endpoints(); ++e) {
    const int host = host_of(s, t, e);
    if (!host_named[static_cast<std::size_t>(host)]) {
      host_named[static_cast<std::size_t>(host)] = true;
      buf = string_printf(
          "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,"
          "\"args\":{\"name\":\"host %d\"}},\n",
          host, host);
      out += buf;
    }
    buf = string_printf(
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,"
        "\"args\":{\"name\":\"%s\"}},\n",
        host, e, track_name(s, e).c_str());
    out += buf;
  }
}

}  // namespace

Expected<std::string> chrome_trace_json(const sched::Schedule& schedule,
                                        const sim::SimResult& result,
                                        const topo::Topology& topology) {
  if (result.transfers.size() != schedule.size()) {
    return fail(Errc::InvalidArgument, "the simulation did not record per-transfer times");
  }
  if (schedule.size() > kMaxTraceTransfers) {
    return fail(Errc::InvalidArgument, "a trace of " + std::to_string(schedule.size()) +
                                           " transfers is too large (limit " +
                                           std::to_string(kMaxTraceTransfers) +
                                           "); simulate fewer nodes for a trace");
  }
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  out.reserve(out.size() + schedule.size() * 160);
  append_metadata(out, schedule, topology);
  std::string buf;
  const auto transfers = schedule.transfers();
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    const sched::Transfer& t = transfers[i];
    const sim::TransferTiming& time = result.transfers[i];
    buf = string_printf(
        "{\"ph\":\"X\",\"name\":\"%s %d->%d\",\"cat\":\"transfer\",\"pid\":%d,\"tid\":%d,"
        "\"ts\":%.6f,\"dur\":%.6f,\"args\":{\"transfer\":%zu,\"src\":%d,\"dst\":%d,"
        "\"bytes\":%lld,\"reduce\":%s,\"channel\":%d}},\n",
        t.reduce ? "reduce" : "copy", t.src.value, t.dst.value,
        host_of(schedule, topology, t.src.value), t.src.value, time.ready.us(),
        (time.end - time.ready).us(), i, t.src.value, t.dst.value,
        static_cast<long long>(t.slice.size.value), t.reduce ? "true" : "false",
        static_cast<int>(t.channel));
    out += buf;
  }
  // JSON has no trailing commas: drop the last one.
  if (out.size() >= 2 && out[out.size() - 2] == ',') out.erase(out.size() - 2, 1);
  out += "]}\n";
  return out;
}

}  // namespace topotune::cli
