#include "planning/shard_units.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace topotune::tune {
namespace {

// "model.layers.3.mlp.up_proj" -> "model.layers.3"; "" when no dotted integer component.
std::string block_prefix(const std::string& name) {
  std::size_t start = 0;
  while (start < name.size()) {
    const std::size_t dot = name.find('.', start);
    const std::size_t end = dot == std::string::npos ? name.size() : dot;
    const bool digits = end > start && std::all_of(name.begin() + static_cast<long>(start),
                                                   name.begin() + static_cast<long>(end),
                                                   [](char c) { return std::isdigit(c) != 0; });
    // A number that is not the first component names a block ("h.0", "layers.12").
    if (digits && start > 0) return name.substr(0, end);
    start = end + 1;
  }
  return "";
}

}  // namespace

std::int64_t ShardUnits::total_params() const {
  std::int64_t n = 0;
  for (const ShardUnit& u : units) n += u.params;
  return n;
}

std::int64_t ShardUnits::largest_unit() const {
  std::int64_t n = 0;
  for (const ShardUnit& u : units) n = std::max(n, u.params);
  return n;
}

std::int64_t ShardUnits::largest_block() const {
  std::int64_t n = 0;
  for (const ShardUnit& u : units) n = u.root ? n : std::max(n, u.params);
  return n;
}

std::int64_t ShardUnits::root_params() const {
  std::int64_t n = 0;
  for (const ShardUnit& u : units) n += u.root ? u.params : 0;
  return n;
}

Expected<ShardUnits> make_shard_units(const ModelProfile& model, const ComputeParams& compute) {
  TT_TRY(const sim::StepModel step, make_step_model(model, compute, sched::DataType::BF16));
  ShardUnits out;
  out.units.push_back({"root", 0, true});
  std::map<std::string, int> index;
  std::vector<int> unit_of_layer;
  for (const LayerProfile& l : model.layers) {
    const std::string prefix = block_prefix(l.name);
    int u = 0;
    if (!prefix.empty()) {
      auto [it, fresh] = index.emplace(prefix, static_cast<int>(out.units.size()));
      if (fresh) out.units.push_back({prefix, 0, false});
      u = it->second;
    }
    unit_of_layer.push_back(u);
  }
  for (const ParamTensor& p : model.params) {
    if (p.trainable) out.units[static_cast<std::size_t>(unit_of_layer[p.layer])].params += p.numel;
  }
  for (std::size_t i = 0; i < step.layers.size(); ++i) {
    const int u = unit_of_layer[i];
    if (out.segments.empty() || out.segments.back().unit != u)
      out.segments.push_back({u, Seconds(0), Seconds(0)});
    out.segments.back().forward += step.layers[i].forward;
    out.segments.back().backward += step.layers[i].backward;
  }
  return out;
}

ShardUnits with_recompute(const ShardUnits& in) {
  ShardUnits out = in;
  for (ComputeSegment& s : out.segments) {
    if (!out.units[static_cast<std::size_t>(s.unit)].root) s.backward += s.forward;
  }
  return out;
}

ShardUnits split_units(const ShardUnits& in, std::int64_t max_params) {
  ShardUnits out;
  std::vector<int> first(in.units.size()), pieces(in.units.size(), 1);
  for (std::size_t u = 0; u < in.units.size(); ++u) {
    const ShardUnit& unit = in.units[u];
    if (!unit.root && max_params > 0 && unit.params > max_params) {
      pieces[u] = static_cast<int>((unit.params + max_params - 1) / max_params);
    }
    first[u] = static_cast<int>(out.units.size());
    for (int k = 0; k < pieces[u]; ++k) {
      // Equal pieces; the first takes the remainder so the total is kept exactly.
      const std::int64_t share = unit.params / pieces[u] + (k == 0 ? unit.params % pieces[u] : 0);
      out.units.push_back(
          {unit.name + (pieces[u] > 1 ? "#" + std::to_string(k) : ""), share, unit.root});
    }
  }
  for (const ComputeSegment& s : in.segments) {
    const int n = pieces[static_cast<std::size_t>(s.unit)];
    for (int k = 0; k < n; ++k) {
      out.segments.push_back(
          {first[static_cast<std::size_t>(s.unit)] + k, s.forward / n, s.backward / n});
    }
  }
  return out;
}

}  // namespace topotune::tune
