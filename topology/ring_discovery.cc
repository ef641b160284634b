// Intra-host ring discovery.
//
// NVLink mesh (p3.16xlarge's hybrid cube-mesh): Hamiltonian cycles over NVLink edges only,
// found by depth-first search from GPU 0 (bounded, so a strange mesh cannot hang us). Cycles
// are picked greedily: first the one with the most NVLinks on its edges (double links first),
// then ones that fit in the links the chosen rings left, as NCCL spreads channels over
// distinct links. NVSwitch: identity order with PCIe-switch mates adjacent. PCIe only: by
// socket, then PCIe switch, so a ring crosses each socket boundary once.

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

#include "topology/topology_impl.h"

namespace topotune::topo {
namespace {

constexpr int kMaxCycles = 20000;       // DFS budget: stop enumerating after this many cycles
constexpr long kMaxDfsSteps = 2000000;  // and after this many steps
constexpr int kMaxRings = 8;

struct CycleSearch {
  int n = 0;
  std::vector<std::vector<int>> links;  // links[a][b] = NVLinks between a and b
  std::vector<std::vector<int>> cycles;
  std::vector<int> path;
  std::vector<bool> used;
  long steps = 0;

  void dfs(int v) {
    if (++steps > kMaxDfsSteps || static_cast<int>(cycles.size()) >= kMaxCycles) return;
    if (static_cast<int>(path.size()) == n) {
      // Each cycle is found in both directions; keep the one whose second GPU is smaller.
      if (links[v][0] > 0 && (n < 3 || path[1] < path.back())) cycles.push_back(path);
      return;
    }
    for (int w = 0; w < n; ++w) {
      if (used[w] || links[v][w] == 0) continue;
      used[w] = true;
      path.push_back(w);
      dfs(w);
      path.pop_back();
      used[w] = false;
    }
  }
};

int cycle_weight(const CycleSearch& s, const std::vector<int>& c) {
  int sum = 0;
  for (std::size_t i = 0; i < c.size(); ++i) sum += s.links[c[i]][c[(i + 1) % c.size()]];
  return sum;
}

std::vector<std::vector<int>> nvlink_rings(const InstanceSpec& inst) {
  CycleSearch s;
  s.n = inst.num_gpus;
  s.links.assign(s.n, std::vector<int>(s.n, 0));
  for (const NvLinkPair& p : inst.nvlink_pairs) {
    s.links[p.a][p.b] += p.links;
    s.links[p.b][p.a] += p.links;
  }
  if (s.n < 2) return {};
  s.used.assign(s.n, false);
  s.used[0] = true;
  s.path = {0};
  s.dfs(0);
  // Heaviest first; ties keep DFS (lexicographic) order, so the result is deterministic.
  std::stable_sort(s.cycles.begin(), s.cycles.end(), [&](const auto& a, const auto& b) {
    return cycle_weight(s, a) > cycle_weight(s, b);
  });
  std::vector<std::vector<int>> left = s.links, chosen;
  for (const auto& c : s.cycles) {
    bool fits = true;
    for (std::size_t i = 0; i < c.size() && fits; ++i) fits = left[c[i]][c[(i + 1) % c.size()]] > 0;
    if (!fits) continue;
    for (std::size_t i = 0; i < c.size(); ++i) {
      --left[c[i]][c[(i + 1) % c.size()]];
      --left[c[(i + 1) % c.size()]][c[i]];
    }
    chosen.push_back(c);
    if (static_cast<int>(chosen.size()) == kMaxRings) break;
  }
  return chosen;
}

// GPUs grouped by (socket, PCIe switch), in index order inside a group.
std::vector<int> grouped_order(const InstanceSpec& inst, bool by_socket) {
  std::vector<int> sw(static_cast<std::size_t>(inst.num_gpus), 1 << 20);
  for (std::size_t s = 0; s < inst.pcie_switches.size(); ++s)
    for (int g : inst.pcie_switches[s].gpus) sw[g] = static_cast<int>(s);
  std::vector<int> order(static_cast<std::size_t>(inst.num_gpus));
  std::iota(order.begin(), order.end(), 0);
  auto socket = [&](int g) {
    return by_socket && g < static_cast<int>(inst.gpu_socket.size()) ? inst.gpu_socket[g] : 0;
  };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return std::pair(socket(a), sw[a]) < std::pair(socket(b), sw[b]);
  });
  return order;
}

}  // namespace

std::vector<std::vector<int>> discover_intra_host_rings(const InstanceSpec& inst) {
  if (inst.fabric == IntraFabric::NvLinkMesh) {
    auto rings = nvlink_rings(inst);
    if (!rings.empty()) return rings;
    // No NVLink-only Hamiltonian cycle: fall back to the PCIe order below.
  }
  // An NVSwitch reaches every GPU alike, so only the PCIe grouping matters (for the NICs).
  return {grouped_order(inst, inst.fabric != IntraFabric::NvSwitch)};
}

}  // namespace topotune::topo
