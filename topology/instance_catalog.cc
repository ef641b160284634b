// The embedded instance catalog and name lookup with suggestions.

#include "topology/instance_catalog.h"

#include <algorithm>
#include <cctype>

#include "core/name_check.h"
#include "topology/embedded_instances.h"
#include "topology/instance_loader.h"

namespace topotune::topo {

InstanceCatalog::InstanceCatalog(std::vector<CatalogEntry> entries) : entries_(std::move(entries)) {
  std::stable_sort(entries_.begin(), entries_.end(),
                   [](const CatalogEntry& a, const CatalogEntry& b) { return a.name < b.name; });
  entries_.erase(
      std::unique(entries_.begin(), entries_.end(),
                  [](const CatalogEntry& a, const CatalogEntry& b) { return a.name == b.name; }),
      entries_.end());
}

const InstanceCatalog& InstanceCatalog::builtin() {
  static const InstanceCatalog catalog = [] {
    std::vector<CatalogEntry> entries;
    for (const EmbeddedFile& e : detail::embedded_instances())
      entries.push_back({e.name, e.text()});
    return InstanceCatalog(std::move(entries));
  }();
  return catalog;
}

std::vector<std::string> InstanceCatalog::names() const {
  std::vector<std::string> out;
  for (const CatalogEntry& e : entries_) out.push_back(e.name);
  return out;
}

Expected<InstanceSpec> InstanceCatalog::load(const std::string& name) const {
  for (const std::string& candidate : {name, name.starts_with("ml.") ? name.substr(3) : ""}) {
    for (const CatalogEntry& e : entries_)
      if (!candidate.empty() && e.name == candidate)
        return parse_instance_json(e.text, "data/instances/" + e.name + ".json", e.name);
  }
  std::string msg = "unknown instance '" + display_text(name) + "'";
  const std::vector<std::string> near = suggestions(name);
  if (!near.empty()) {
    msg += " (did you mean ";
    for (std::size_t i = 0; i < near.size(); ++i) msg += (i ? ", " : "") + near[i];
    msg += "?)";
  }
  msg += "; `topotune instances` lists the catalog";
  return fail(Errc::NotFound, msg);
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::vector<std::string> InstanceCatalog::suggestions(const std::string& name,
                                                      std::size_t max) const {
  // Rank: names starting with what was typed first ("p4d" -> p4d.24xlarge, p4de.24xlarge),
  // then by edit distance; only reasonably close names are offered.
  const std::string query = name.starts_with("ml.") ? name.substr(3) : name;
  const std::size_t limit = std::max<std::size_t>(3, query.size() / 3);
  std::vector<std::pair<std::size_t, std::string>> ranked;
  for (const CatalogEntry& e : entries_) {
    const bool prefix = !query.empty() && e.name.starts_with(query);
    const std::size_t d = prefix ? 0 : edit_distance(query, e.name);
    if (prefix || d <= limit) ranked.emplace_back(d, e.name);
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < ranked.size() && i < max; ++i) out.push_back(ranked[i].second);
  return out;
}

std::vector<std::string> list_instances() { return InstanceCatalog::builtin().names(); }

Expected<InstanceSpec> find_instance(const std::string& name) {
  // Before the lookup: the did-you-mean distance is quadratic in the name's length, and a
  // 30 MB name took 15.6 s to refuse. Catalog names are short ("p4d.24xlarge").
  constexpr std::size_t kMaxInstanceName = 128;
  if (name.size() > kMaxInstanceName) {
    return fail(Errc::NotFound, "unknown instance type: the name is " +
                                    std::to_string(name.size()) + " characters, more than " +
                                    std::to_string(kMaxInstanceName));
  }
  return InstanceCatalog::builtin().load(name);
}

}  // namespace topotune::topo
