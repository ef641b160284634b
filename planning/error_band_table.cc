#include "planning/error_band_table.h"

#include <nlohmann/json.hpp>

#include "core/assert.h"
#include "core/string_printf.h"
#include "planning/embedded_error_bands.h"

namespace topotune::tune {
namespace {

constexpr std::int64_t kMiB = std::int64_t{1} << 20;

// "infiniband, 2 nodes, 16-256 MiB, NCCL >=2.19": the group's keys in reading order.
std::string group_words(const std::map<std::string, std::string>& dims,
                        const std::string& collective) {
  std::string out;
  const auto add = [&out](const std::string& w) { out += (out.empty() ? "" : ", ") + w; };
  if (auto it = dims.find("nic_class"); it != dims.end()) {
    add(it->second == "none" ? "one node" : it->second);
  }
  if (auto it = dims.find("nodes"); it != dims.end() && dims.at("nic_class") != "none") {
    add(it->second + " nodes");
  }
  if (auto it = dims.find("size"); it != dims.end()) add(it->second);
  if (auto it = dims.find("nccl"); it != dims.end()) {
    add(it->second == "unknown" ? "NCCL release not stated" : "NCCL " + it->second);
  }
  if (out.empty()) out = collective + ", every kind >= 1MiB";
  return out;
}

}  // namespace

std::string nodes_bucket(int nodes) {
  return nodes <= 1 ? "1" : nodes == 2 ? "2" : nodes <= 8 ? "3-8" : ">8";
}

std::string size_bucket(Bytes size) {
  const std::int64_t b = size.value;
  if (b < kMiB) return "<1MiB";
  return b < 16 * kMiB ? "1-16MiB" : b < 256 * kMiB ? "16-256MiB" : ">=256MiB";
}

std::string release_bucket(const algo::NcclVersion& v) {
  if (!v.known) return "unknown";
  if (!v.at_least(2, 12)) return "<2.12";
  return v.at_least(2, 19) ? ">=2.19" : "2.12-2.18";
}

Expected<ErrorBandTable> ErrorBandTable::parse(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return fail(Errc::InvalidArgument, "error bands: not a JSON object");
  }
  ErrorBandTable t;
  try {
    if (j.at("schema").get<std::string>() != "topotune.error_bands/1") {
      return fail(Errc::InvalidArgument, "error bands: schema is not topotune.error_bands/1");
    }
    t.min_entries_ = j.at("min_entries").get<int>();
    t.fallback_ = j.at("fallback").get<std::vector<std::vector<std::string>>>();
    for (const auto& [collective, w] : j.at("wide").items()) {
      t.wide_[collective] = {w.at("error").get<double>(), w.at("entry").get<std::string>()};
    }
    for (const nlohmann::json& g : j.at("groups")) {
      Group group;
      for (const char* dim : {"collective", "nic_class", "nodes", "size", "nccl"}) {
        if (g.contains(dim)) group.dims[dim] = g.at(dim).get<std::string>();
      }
      group.median = g.at("median").get<double>();
      group.rows = g.at("rows").get<int>();
      group.entries = static_cast<int>(g.at("entries").size());
      t.groups_.push_back(std::move(group));
    }
  } catch (const nlohmann::json::exception& e) {
    return fail(Errc::InvalidArgument, std::string("error bands: ") + e.what());
  }
  return t;
}

const ErrorBandTable& ErrorBandTable::builtin() {
  static const ErrorBandTable table = [] {
    const std::vector<EmbeddedFile> files = detail::embedded_error_bands();
    TT_ASSERT(files.size() == 1, "the build embeds exactly data/error_bands.json");
    Expected<ErrorBandTable> t = parse(files[0].text());
    TT_ASSERT(t.has_value(), "data/error_bands.json: %s", t.error().message.c_str());
    return std::move(*t);
  }();
  return table;
}

const ErrorBandTable::Group* ErrorBandTable::find(
    const std::map<std::string, std::string>& want) const {
  for (const Group& g : groups_) {
    if (g.dims == want) return &g;
  }
  return nullptr;
}

bool ErrorBandTable::has_logs_of(const BandKey& key) const {
  return find({{"collective", key.collective}, {"nic_class", key.nic_class}}) != nullptr;
}

BandFigure ErrorBandTable::lookup(const BandKey& key, std::optional<Bytes> size) const {
  if (!key.nic_class.empty() && !has_logs_of(key) && wide_.count(key.collective)) {
    const Wide& w = wide_.at(key.collective);
    return {w.error,
            string_printf("no %s log of a %s cluster: the worst held-out log's %.1f %% (%s)",
                          key.collective.c_str(), key.nic_class.c_str(), w.error * 100,
                          w.entry.c_str()),
            true};
  }
  const std::map<std::string, std::string> values = {{"nic_class", key.nic_class},
                                                     {"nodes", key.nodes},
                                                     {"size", size ? size_bucket(*size) : ""},
                                                     {"nccl", key.nccl}};
  for (const std::vector<std::string>& dims : fallback_) {
    std::map<std::string, std::string> want = {{"collective", key.collective}};
    bool usable = true;
    for (const std::string& d : dims) {
      const auto it = values.find(d);
      usable = usable && it != values.end() && !it->second.empty();
      if (usable) want[d] = it->second;
    }
    if (!usable) continue;
    const Group* g = find(want);
    if (g == nullptr || g->entries < min_entries_) continue;
    want.erase("collective");
    return {g->median,
            string_printf("%s: %.1f %% over %d rows of %d logs",
                          group_words(want, key.collective).c_str(), g->median * 100, g->rows,
                          g->entries),
            false};
  }
  TT_ASSERT(false, "error bands: no group for %s (the file has no overall figure)",
            key.collective.c_str());
  return {};
}

}  // namespace topotune::tune
