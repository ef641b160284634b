#include "algorithms/parameter_server.h"

#include "algorithms/cost_model.h"
#include "core/memory_budget.h"

namespace topotune::algo {

RankId colocated_server(const RankLayout& layout, int shard) {
  return layout.rank_of(shard % layout.hosts, (shard / layout.hosts) % layout.gpus_per_host);
}

void add_ps_allreduce(const PhaseContext& ctx, const std::vector<EndpointId>& members,
                      sched::Slice region, const std::vector<EndpointId>& servers, int channel) {
  const int k = static_cast<int>(servers.size());
  std::vector<char> touched(members.size(), 0);
  DepList deps, pushes;
  for (int j = 0; j < k; ++j) {
    const EndpointId server = servers[static_cast<std::size_t>(j)];
    const sched::Slice shard = part(ctx, region, j, k);
    pushes.clear();
    for (EndpointId m : members) {
      if (m == server) continue;
      deps.clear();
      ctx.add_entry(deps, m);
      ctx.add_entry(deps, server);
      pushes.push_back(ctx.builder.add(m, server, shard, true, deps, channel));
    }
    for (std::size_t i = 0; i < members.size(); ++i) {
      const EndpointId m = members[i];
      if (m == server) continue;
      const TransferId pull = ctx.builder.add(server, m, shard, false, pushes, channel);
      ctx.add_exit(m, pull);
      ctx.add_exit(server, pull);
      touched[i] = 1;
    }
  }
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (!touched[i]) ctx.pass_through(members[i]);
  }
}

int ParameterServer::shards(const RankLayout& layout) const {
  if (options_.shards > 0) return options_.shards;
  return options_.ps_placement == PsPlacement::Cpu ? layout.hosts : layout.ranks();
}

std::string ParameterServer::name() const {
  return "ps(shards=" +
         (options_.shards > 0 ? std::to_string(options_.shards) : std::string("auto")) +
         ",placement=" + ps_placement_name(options_.ps_placement) + ")";
}

Expected<void> ParameterServer::supports(const sched::CollectiveSpec& spec,
                                         const RankLayout& layout) const {
  TT_TRY_VOID(check_common(spec, layout, {sched::Collective::Allreduce}));
  if (options_.shards < 0) return fail(Errc::InvalidArgument, "shards must be positive");
  if (shards(layout) > spec.ranks) {
    return fail(Errc::InvalidArgument, "ps: " + std::to_string(shards(layout)) +
                                           " shards is more than the " +
                                           std::to_string(spec.ranks) + " ranks");
  }
  return {};
}

Expected<sched::Schedule> ParameterServer::generate(const sched::CollectiveSpec& spec,
                                                    const RankLayout& layout) const {
  TT_TRY_VOID(supports(spec, layout));
  sched::ScheduleBuilder b(spec, name());
  const int k = shards(layout);
  std::vector<EndpointId> members, servers;
  for (int r = 0; r < spec.ranks; ++r) members.push_back(EndpointId(r));
  if (options_.ps_placement == PsPlacement::Cpu) {
    std::vector<EndpointId> cpus;
    for (int h = 0; h < layout.hosts; ++h) cpus.push_back(b.add_host_cpu(h, layout.rank_of(h, 0)));
    for (int j = 0; j < k; ++j) servers.push_back(cpus[static_cast<std::size_t>(j % layout.hosts)]);
  } else {
    for (int j = 0; j < k; ++j) servers.push_back(sched::endpoint_of(colocated_server(layout, j)));
  }
  const auto m = static_cast<std::int64_t>(members.size());
  TT_TRY_VOID(reserve(b, saturating_product({2, k, m}), saturating_product({k, m, m + 1})));
  add_ps_allreduce(PhaseContext{b, sched::dtype_size(spec.dtype)}, members,
                   sched::Slice{Bytes(0), spec.bytes}, servers, 0);
  return std::move(b).build();
}

}  // namespace topotune::algo

namespace topotune::algo {

Seconds ps_cpu_closed_form(int hosts, int rails, int shards, double region, const CostParams& p) {
  // CPU h serves ⌈k/H⌉ shards of every rail; each is pushed by the (H-1)·rails remote GPUs
  // over the network and the `rails` GPUs of host h over PCIe.
  const int m = (shards + hosts - 1) / hosts;
  const double shard = region / shards;
  return ps_time((hosts - 1) * rails * m, rails * m, shard, p.net_to_cpu, p.gpu_to_cpu,
                 p.gamma_cpu());
}

Expected<Seconds> ParameterServer::closed_form(const sched::CollectiveSpec& spec,
                                               const RankLayout& layout,
                                               const CostParams& params) const {
  TT_TRY_VOID(supports(spec, layout));
  const int k = shards(layout), G = layout.gpus_per_host, n = spec.ranks;
  const double S = spec.bytes.as_double();
  if (options_.ps_placement == PsPlacement::Cpu) {
    return ps_cpu_closed_form(layout.hosts, G, k, S, params);
  }
  // A server GPU serves one shard: n-G pushes arrive over its NIC, G-1 over NVLink.
  // With one shard per rank, the servers sharing a NIC all receive at once.
  const HopCost net = k >= n ? params.inter_all_gpus() : params.inter;
  return ps_time(n - G, G - 1, S / k, net, params.intra, params.gamma_gpu());
}

}  // namespace topotune::algo
