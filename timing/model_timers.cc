#include "timing/model_timers.h"

namespace topotune::tune {

Expected<std::unique_ptr<ModelTimers>> ModelTimers::create(const topo::ClusterSpec& spec,
                                                           const algo::NcclModelParams& params,
                                                           bool nccl_transport,
                                                           algo::NcclVersion version) {
  std::unique_ptr<ModelTimers> m(new ModelTimers());
  m->spec_ = spec;
  TT_TRY(m->system_, algo::nccl_system_from_cluster(spec));
  TT_TRY(m->fabric_, probe_fabric(spec, nccl_inter_node_channels(m->system_, params)));
  m->system_.fabric = m->fabric_.nccl();
  const ShapeDefaults costs = nccl_transport ? software_costs(params, m->system_) : ShapeDefaults{};
  TT_TRY(ClosedFormTimer own, ClosedFormTimer::create(spec, costs, &m->fabric_));
  m->closed_form_ = std::make_unique<ClosedFormTimer>(std::move(own));
  m->nccl_ = std::make_unique<NcclTimer>(m->system_, params, *m->closed_form_, version);
  return m;
}

Expected<std::unique_ptr<SimulatorTimer>> ModelTimers::simulator(Bytes max_bytes, SimBudget budget,
                                                                 bool nccl_backend) const {
  const CollectiveTimer& below =
      nccl_backend ? static_cast<const CollectiveTimer&>(*nccl_) : *closed_form_;
  return SimulatorTimer::create(spec_, below, max_bytes, budget, nccl_backend, closed_form_.get());
}

}  // namespace topotune::tune
