#include "tests/simulator/simgrid_replay.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <simgrid/s4u.hpp>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace topotune::sim::testing {
namespace {

namespace sg4 = simgrid::s4u;

// Everything the child needs, resolved in the parent (where errors can still be returned).
struct Plan {
  std::vector<int> device;        ///< per endpoint
  std::vector<double> reduce_bw;  ///< per device
  std::vector<char> reduces;      ///< per device: receives a reduce transfer
  std::vector<double> link_bw;    ///< per link
  struct Path {
    std::vector<int> links;
    double latency = 0;
    double cap = 0;  ///< per-flow cap, 0 for none
  };
  /// (from device, to device, channel) -> route. SimGrid has one route per pair of hosts, and
  /// topotune's routes may depend on the channel (rails), so each channel's transfers leave and
  /// arrive at their own pair of SimGrid hosts (one per device and channel); the reductions all
  /// run on the device's own host.
  std::map<std::tuple<int, int, int>, Path> paths;
};

Expected<Plan> plan_replay(const NetworkModel& network, const sched::Schedule& schedule) {
  Plan p;
  for (int e = 0; e < schedule.num_endpoints(); ++e) {
    TT_TRY(const NodeId device, network.device_of(schedule.endpoint(EndpointId(e)), EndpointId(e)));
    p.device.push_back(device.value);
  }
  for (std::size_t d = 0; d < network.num_devices(); ++d) {
    p.reduce_bw.push_back(network.reduce_bandwidth(NodeId(static_cast<int>(d))).value);
  }
  for (std::size_t l = 0; l < network.num_links(); ++l) {
    p.link_bw.push_back(network.link_bandwidth(LinkId(static_cast<int>(l))).value);
  }
  p.reduces.assign(p.reduce_bw.size(), 0);
  for (const sched::Transfer& t : schedule.transfers()) {
    const int from = p.device[t.src.index()], to = p.device[t.dst.index()];
    if (t.reduce) p.reduces[static_cast<std::size_t>(to)] = 1;
    if (from == to)
      return fail(Errc::InvalidArgument, "simgrid replay: a transfer within one device");
    const auto [it, inserted] = p.paths.try_emplace({from, to, t.channel});
    if (!inserted) continue;
    const topo::Route r = network.route(NodeId(from), NodeId(to), t.channel);
    for (LinkId l : r.view()) it->second.links.push_back(l.value);
    it->second.latency = r.latency.value;
    const auto cap = network.flow_cap(NodeId(from), NodeId(to));
    it->second.cap = cap ? cap->value : 0.0;
  }
  return p;
}

// The SimGrid platform of a Plan (see simgrid_replay.h for the mapping). Hosts only where
// needed: SimGrid's full zone keeps a routing table of hosts x hosts, so a host per device and
// per path (the first version) took 9 GB at 4,096 ranks.
struct Platform {
  std::vector<sg4::Host*> devices;  ///< per device that reduces (else null): its reductions
  std::map<std::pair<int, int>, sg4::Host*> channel_hosts;  ///< (device, channel) -> host
  std::map<std::tuple<int, int, int>, std::pair<sg4::Host*, sg4::Host*>> latency_hosts;
};

// The route that only delays: a fat pipe of `latency` between two hosts of its own, shared by
// every path of that latency (a fat pipe is not shared: each Comm pays the latency alone).
std::pair<sg4::Host*, sg4::Host*> add_delay_route(sg4::NetZone* zone, const std::string& tag,
                                                  double latency) {
  sg4::Host* a = zone->create_host("la" + tag, 1.0)->seal();
  sg4::Host* b = zone->create_host("lb" + tag, 1.0)->seal();
  sg4::Link* delay = zone->create_link("delay" + tag, 1e15)
                         ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
                         ->set_latency(latency)
                         ->seal();
  zone->add_route(a->get_netpoint(), b->get_netpoint(), nullptr, nullptr, {sg4::LinkInRoute(delay)},
                  false);
  return {a, b};
}

Platform build_platform(const Plan& p) {
  Platform out;
  sg4::NetZone* zone = sg4::create_full_zone("network");
  for (std::size_t d = 0; d < p.reduce_bw.size(); ++d) {
    out.devices.push_back(p.reduces[d]
                              ? zone->create_host("d" + std::to_string(d), p.reduce_bw[d])->seal()
                              : nullptr);
  }
  std::map<double, std::pair<sg4::Host*, sg4::Host*>> delay_routes;  // by latency
  std::vector<sg4::Link*> links;
  for (std::size_t l = 0; l < p.link_bw.size(); ++l) {
    links.push_back(zone->create_link("l" + std::to_string(l), p.link_bw[l])->seal());
  }
  const auto channel_host = [&](int device, int channel) {
    sg4::Host*& h = out.channel_hosts[{device, channel}];
    if (h == nullptr) {
      h = zone->create_host("d" + std::to_string(device) + "c" + std::to_string(channel), 1.0)
              ->seal();
    }
    return h;
  };
  for (const auto& [key, path] : p.paths) {
    const auto [from, to, channel] = key;
    const std::string tag =
        std::to_string(from) + "_" + std::to_string(to) + "_" + std::to_string(channel);
    // 1e15 B/s: no flow of a test comes near it, and it stays well inside lmm's precision.
    sg4::Link* pipe = zone->create_link("p" + tag, path.cap > 0 ? path.cap : 1e15)
                          ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
                          ->seal();
    std::vector<sg4::LinkInRoute> route = {sg4::LinkInRoute(pipe)};
    for (int l : path.links) route.emplace_back(links[static_cast<std::size_t>(l)]);
    zone->add_route(channel_host(from, channel)->get_netpoint(),
                    channel_host(to, channel)->get_netpoint(), nullptr, nullptr, route, false);
    if (path.latency > 0) {
      auto& delay = delay_routes[path.latency];
      if (delay.first == nullptr) {
        delay = add_delay_route(zone, std::to_string(delay_routes.size()), path.latency);
      }
      out.latency_hosts[key] = delay;
    }
  }
  zone->seal();
  return out;
}

// A transfer as activities: [latency Comm ->] data Comm [-> reduction Exec]. It completes with
// its last activity; its dependencies gate its first.
struct TransferActivities {
  sg4::CommPtr first, comm;
  sg4::ExecPtr exec;
  const sg4::Activity* last() const {
    return exec ? static_cast<const sg4::Activity*>(exec.get()) : comm.get();
  }
  double finish() const { return exec ? exec->get_finish_time() : comm->get_finish_time(); }
};

// Creates a transfer's activities and starts them (each waits for the one before it).
TransferActivities launch(const Plan& p, const Platform& net, const sched::Transfer& t) {
  TransferActivities a;
  const int from = p.device[t.src.index()], to = p.device[t.dst.index()];
  a.comm = sg4::Comm::sendto_init(net.channel_hosts.at({from, t.channel}),
                                  net.channel_hosts.at({to, t.channel}));
  a.comm->set_payload_size(static_cast<std::uint64_t>(t.slice.size.value));
  a.first = a.comm;
  if (const auto it = net.latency_hosts.find({from, to, t.channel});
      it != net.latency_hosts.end()) {
    a.first = sg4::Comm::sendto_init(it->second.first, it->second.second);
    a.first->set_payload_size(0);
    a.first->add_successor(a.comm);
  }
  if (t.reduce) {
    a.exec = sg4::Exec::init();
    a.exec->set_flops_amount(t.slice.size.as_double());
    a.exec->set_host(net.devices[static_cast<std::size_t>(to)]);
    a.comm->add_successor(a.exec);
  }
  if (a.first != a.comm) a.first->vetoable_start();
  a.comm->vetoable_start();
  if (a.exec) a.exec->vetoable_start();
  return a;
}

// In the child: runs the schedule in SimGrid and returns the completion times.
//
// The schedule's dependencies are released here, not with SimGrid's add_successor: a
// host-to-host Comm is detached when it is created (Comm::sendto_init, SimGrid 3.32), which puts
// it on the maestro's activity list, and every completion removes itself from that list by a
// linear search (CommImpl::finish). Creating every transfer's Comms up front made the replay
// quadratic in the transfers (a 64-rank ring of 8,064 transfers: 3.3 s, 0.4 s of it without
// the latency Comms); creating them when the transfer becomes ready keeps the list to the
// transfers in flight. Same semantics: SimGrid's own release_dependencies() starts a successor
// from the completion of its last predecessor, at the same simulated time, as this does.
std::vector<double> run_simgrid(const Plan& p, const sched::Schedule& schedule) {
  std::vector<std::string> args = {"replay",
                                   "--cfg=network/model:CM02",
                                   "--cfg=network/crosstraffic:0",
                                   "--cfg=network/latency-factor:1",
                                   "--cfg=network/bandwidth-factor:1",
                                   "--cfg=network/weight-S:0",
                                   "--cfg=network/TCP-gamma:0",
                                   "--cfg=surf/precision:1e-13",
                                   "--cfg=maxmin/precision:1e-9",
                                   "--log=root.thresh:critical"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  sg4::Engine engine(&argc, argv.data());
  const Platform net = build_platform(p);
  const std::size_t n = schedule.size();
  std::vector<std::uint32_t> waiting(n, 0);
  std::vector<std::vector<std::uint32_t>> dependents(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto span = schedule.deps(TransferId(static_cast<int>(i)));
    std::vector<TransferId> deps(span.begin(), span.end());
    std::sort(deps.begin(), deps.end());  // a dependency given twice counts once
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    waiting[i] = static_cast<std::uint32_t>(deps.size());
    for (TransferId d : deps) dependents[d.index()].push_back(static_cast<std::uint32_t>(i));
  }
  // Activities are kept only while their transfer runs (and one completion longer, so that
  // SimGrid is done with them when the last reference goes): a replay of millions of
  // transfers would otherwise hold every activity to the end.
  std::unordered_map<const sg4::Activity*, std::pair<std::uint32_t, TransferActivities>> running;
  std::vector<TransferActivities> finished;
  std::vector<double> end(n, -1.0);
  const auto start = [&](std::uint32_t i) {
    TransferActivities a = launch(p, net, schedule.transfers()[i]);
    const sg4::Activity* last = a.last();
    running.emplace(last, std::pair{i, std::move(a)});
  };
  sg4::Activity::on_completion_cb([&](const sg4::Activity& done) {
    const auto it = running.find(&done);
    if (it == running.end()) return;  // the first activities of a transfer
    const std::uint32_t i = it->second.first;
    end[i] = it->second.second.finish();
    finished.clear();  // the previous completion's activities
    finished.push_back(std::move(it->second.second));
    running.erase(it);
    for (const std::uint32_t d : dependents[i]) {
      if (--waiting[d] == 0) start(d);
    }
  });
  for (std::size_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) start(static_cast<std::uint32_t>(i));
  }
  engine.run();
  return end;
}

}  // namespace

Expected<std::vector<double>> simgrid_completion_times(const NetworkModel& network,
                                                       const sched::Schedule& schedule) {
  TT_TRY(const Plan plan, plan_replay(network, schedule));
  int fds[2];
  if (pipe(fds) != 0) return fail(Errc::Internal, "simgrid replay: pipe failed");
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return fail(Errc::Internal, "simgrid replay: fork failed");
  if (pid == 0) {
    close(fds[0]);
    std::vector<double> end;
    try {
      end = run_simgrid(plan, schedule);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "simgrid replay: %s\n", e.what());
      _exit(2);
    }
    const auto* bytes = reinterpret_cast<const char*>(end.data());
    std::size_t left = end.size() * sizeof(double);
    while (left > 0) {
      const ssize_t n = write(fds[1], bytes, left);
      if (n <= 0) _exit(3);
      bytes += n;
      left -= static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::vector<double> end(schedule.size());
  auto* bytes = reinterpret_cast<char*>(end.data());
  std::size_t got = 0, want = end.size() * sizeof(double);
  while (got < want) {
    const ssize_t n = read(fds[0], bytes + got, want - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || got != want) {
    return fail(Errc::Internal,
                "simgrid replay: the SimGrid child failed (status " + std::to_string(status) + ")");
  }
  return end;
}

}  // namespace topotune::sim::testing
