#include "calibration/link_fit.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "calibration/log_time_fit.h"
#include "timing/schedule_predictor.h"

namespace topotune::tune {
namespace {

using Params = std::array<topo::LinkClassParams, topo::kNumLinkKinds>;

/// One free scalar: a class's efficiency or its latency (in µs), with fitting bounds.
struct Free {
  int kind = 0;
  bool latency = false;
  std::string name;
};

double get(const Params& p, const Free& f) {
  const topo::LinkClassParams& c = p[static_cast<std::size_t>(f.kind)];
  return f.latency ? c.latency.us() : c.efficiency;
}

void set(Params& p, const Free& f, double v) {
  topo::LinkClassParams& c = p[static_cast<std::size_t>(f.kind)];
  if (f.latency) {
    c.latency = microseconds(std::clamp(v, 1e-3, 1e4));  // 1 ns .. 10 ms per hop
  } else {
    c.efficiency = std::clamp(v, 0.01, 1.0);
  }
}

Free make_free(int kind, bool latency) {
  return Free{kind, latency,
              std::string(topo::link_kind_name(static_cast<topo::LinkKind>(kind))) +
                  (latency ? ".latency_us" : ".efficiency")};
}

sched::CollectiveSpec spec_of(const LinkFitCase& c, const LinkFitPoint& p, int ranks) {
  sched::CollectiveSpec s;
  s.collective = c.collective;
  s.dtype = p.dtype;
  s.ranks = ranks;
  s.bytes = p.bytes;
  return s;
}

// The classes that carry bytes when the first case's points are simulated at the start.
Expected<std::vector<Free>> used_classes(const LinkFitCase& c) {
  TT_TRY(const SchedulePredictor pred,
         SchedulePredictor::create(c.cluster, c.channels, c.chunks, c.memory));
  std::array<bool, topo::kNumLinkKinds> used{};
  for (const LinkFitPoint& p : c.points) {
    TT_TRY(const sim::SimResult r, pred.simulate(p.algorithm, spec_of(c, p, pred.ranks())));
    for (std::size_t i = 0; i < r.links.size(); ++i) {
      if (r.links[i].bytes.value <= 0) continue;
      const topo::Link& l = pred.topology().link(LinkId(static_cast<std::int32_t>(i)));
      used[static_cast<std::size_t>(l.kind)] = true;
    }
  }
  std::vector<Free> out;
  for (int k = 0; k < topo::kNumLinkKinds; ++k) {
    if (!used[static_cast<std::size_t>(k)]) continue;
    out.push_back(make_free(k, false));
    out.push_back(make_free(k, true));
  }
  return out;
}

Expected<std::vector<Free>> free_parameters(const std::vector<LinkFitCase>& cases,
                                            const LinkFitOptions& opt) {
  if (opt.parameters.empty()) return used_classes(cases.front());
  std::vector<Free> out;
  for (const std::string& name : opt.parameters) {
    bool found = false;
    for (int k = 0; k < topo::kNumLinkKinds && !found; ++k) {
      for (const bool latency : {false, true}) {
        const Free f = make_free(k, latency);
        if (f.name == name) {
          out.push_back(f);
          found = true;
          break;
        }
      }
    }
    if (!found) {
      return fail(Errc::InvalidArgument,
                  "unknown link parameter '" + name +
                      "' (<class>.efficiency or <class>.latency_us; classes nvlink, pcie, "
                      "cpu_interconnect, network, uplink)");
    }
  }
  return out;
}

Expected<double> loss(const std::vector<LinkFitCase>& cases, const Params& params) {
  return mean_log_time_loss(
      cases, [&params](const LinkFitCase& c) { return predict_link_case(c, params); });
}

}  // namespace

Expected<std::vector<double>> predict_link_case(const LinkFitCase& c, const Params& params) {
  topo::ClusterSpec spec = c.cluster;
  spec.link_params = params;
  spec.link_params_set = true;
  TT_TRY(const SchedulePredictor pred,
         SchedulePredictor::create(spec, c.channels, c.chunks, c.memory));
  std::vector<double> out;
  out.reserve(c.points.size());
  for (const LinkFitPoint& p : c.points) {
    TT_TRY(const Seconds t, pred.time(p.algorithm, spec_of(c, p, pred.ranks())).context(c.name));
    out.push_back(t.us());
  }
  return out;
}

Expected<LinkFitResult> fit_link_params(const std::vector<LinkFitCase>& cases,
                                        const LinkFitOptions& options) {
  if (cases.empty()) return fail(Errc::InvalidArgument, "no measured runs to fit");
  TT_TRY(const std::vector<Free> free, free_parameters(cases, options));
  LinkFitResult res;
  res.params = cases.front().cluster.link_params;
  for (const Free& f : free) res.fitted.push_back(f.name);
  TT_TRY(double best, loss(cases, res.params));
  res.loss_before = best;
  const auto scaled = [&free](Params p, std::size_t k, double factor) {
    set(p, free[k], std::max(get(p, free[k]), 1e-3) * factor);
    return p;
  };
  const auto fit_loss = [&cases](const Params& p) { return loss(cases, p); };
  TT_TRY(best, log_coordinate_descent(res.params, free.size(), options.max_rounds, best, scaled,
                                      fit_loss, res.evaluations));
  res.loss_after = best;
  return res;
}

std::string link_params_section(const LinkFitResult& result) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (int k = 0; k < topo::kNumLinkKinds; ++k) {
    const std::string cls = topo::link_kind_name(static_cast<topo::LinkKind>(k));
    for (const bool latency : {false, true}) {
      j[cls][latency ? "latency_us" : "efficiency"] = get(result.params, make_free(k, latency));
    }
  }
  return j.dump();
}

}  // namespace topotune::tune
