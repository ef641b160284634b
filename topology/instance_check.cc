// The catalog's rules on a loaded instance (see instance_check.h), and checking a file with
// the loader first.

#include "topology/instance_check.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>
#include <utility>

#include "topology/instance_loader.h"

namespace topotune::topo {
namespace {

/// A figure of the schema in its field order, and whether the catalog may leave it out.
struct FigureKey {
  const char* path;
  bool optional;
};

// docs/instance-schema.md's figures. The NVLink ones are optional here because the loader
// already requires them (or refuses them) by fabric; efa_version and nvlink_domain_hosts have
// rules of their own.
constexpr FigureKey kFigures[] = {
    {"sagemaker_name", false},
    {"gpu.count", false},
    {"gpu.model", false},
    {"gpu.arch", false},
    {"gpu.bf16_native", false},
    {"gpu.memory_GiB", false},
    {"gpu.peak_fp16_TFLOPS", false},
    {"gpu.peak_fp32_TFLOPS", false},
    {"gpu.peak_tf32_TFLOPS", true},
    {"gpu.memory_bandwidth_GBps", false},
    {"gpu.reduce_bandwidth_GBps", false},
    {"gpu.sm_count", false},
    {"intra.fabric", false},
    {"intra.nvlink_GBps_per_link", true},
    {"intra.nvlinks_per_gpu", true},
    {"intra.nvlink_pairs", true},
    {"intra.nvls", false},
    {"intra.nvlink_domain_hosts", true},
    {"host.cpu_model", false},
    {"host.cpu_sockets", false},
    {"host.host_memory_GiB", false},
    {"host.cpu_interconnect_GBps", false},
    {"host.cpu_reduce_GBps", false},
    {"host.pcie_GBps", false},
    {"host.pcie_switches", false},
    {"host.gpu_socket", false},
    {"host.nic_socket", false},
    {"network.nics", false},
    {"network.nic_Gbps", false},
    {"network.transport", false},
    {"network.efa_version", true},
    {"network.gpudirect_rdma", false},
};

constexpr std::string_view kUnknownPrefix = "unknown: ";

/// What the loader recorded about one figure of the file.
enum class Written { No, Known, Unknown };

Written written(const InstanceSpec& in, const std::string& path) {
  const auto it = in.sources.find(path);
  if (it == in.sources.end() || it->second == kAbsentFigureSource) return Written::No;
  const bool unknown = std::find(in.unknowns.begin(), in.unknowns.end(), path) != in.unknowns.end();
  return unknown ? Written::Unknown : Written::Known;
}

bool blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
}

// A source must point at a section of instances.md or at a named vendor document, so a reader
// can find the figure again.
// Written out rather than as a std::regex: GCC 12's <regex> trips -Wmaybe-uninitialized in the
// ASan build. Matches "instances.md §<digit>" or "NVIDIA <no , or ;>*(datasheet|specifications|
// whitepaper)".
bool cites(const std::string& source) {
  const std::string_view s = source;
  constexpr std::string_view kSection = "instances.md \xC2\xA7";
  for (std::size_t at = s.find(kSection); at != std::string_view::npos;
       at = s.find(kSection, at + 1)) {
    const std::size_t digit = at + kSection.size();
    if (digit < s.size() && std::isdigit(static_cast<unsigned char>(s[digit])) != 0) return true;
  }
  constexpr std::string_view kVendor = "NVIDIA ";
  for (std::size_t at = s.find(kVendor); at != std::string_view::npos;
       at = s.find(kVendor, at + 1)) {
    const std::size_t from = at + kVendor.size();
    const std::string_view span = s.substr(from, s.find_first_of(",;", from) - from);
    for (std::string_view word : {"datasheet", "specifications", "whitepaper"}) {
      if (span.find(word) != std::string_view::npos) return true;
    }
  }
  return false;
}

void check_figures(const InstanceSpec& in, std::vector<InstanceProblem>& out) {
  for (const FigureKey& f : kFigures) {
    const std::string path = f.path;
    switch (written(in, path)) {
      case Written::No:
        if (!f.optional)
          out.push_back(
              {path, "missing (write {\"unknown\": true, \"note\": ...} if unpublished)"});
        break;
      case Written::Unknown:
        if (blank(std::string_view(in.sources.at(path)).substr(kUnknownPrefix.size())))
          out.push_back({path, "an unknown figure needs a note saying why"});
        break;
      case Written::Known:
        if (!cites(in.sources.at(path)))
          out.push_back({path,
                         "source cites neither 'instances.md \xC2\xA7N' nor a named NVIDIA "
                         "datasheet, specifications or whitepaper"});
        break;
    }
  }
}

void check_gpu(const InstanceSpec& in, std::vector<InstanceProblem>& out) {
  if (in.description.empty()) out.push_back({"description", "must be a non-empty string"});
  if (in.sagemaker_name && !in.sagemaker_name->starts_with("ml."))
    out.push_back({"sagemaker_name", "must be null or an 'ml.' name"});
  // The planner searches bf16 gradients only where the GPU computes bf16 natively: Ampere and
  // later (Volta's and Turing's Tensor Cores take fp16 only).
  const bool ampere_or_later = in.gpu.arch == GpuArch::Ampere || in.gpu.arch == GpuArch::Hopper ||
                               in.gpu.arch == GpuArch::Blackwell;
  if (written(in, "gpu.bf16_native") == Written::Unknown)
    out.push_back({"gpu.bf16_native", "required figure may not be unknown"});
  else if (written(in, "gpu.bf16_native") == Written::Known &&
           in.gpu.bf16_native != ampere_or_later)
    out.push_back({"gpu.bf16_native",
                   std::string("must be true exactly on Ampere and later, got ") +
                       (in.gpu.bf16_native ? "true" : "false") + " on " + arch_name(in.gpu.arch)});
}

void check_intra(const InstanceSpec& in, std::vector<InstanceProblem>& out) {
  if (in.nvls && in.fabric != IntraFabric::NvSwitch)
    out.push_back({"intra.nvls", "NVLS (in-switch reduction) needs an nvswitch fabric"});
  std::set<std::pair<int, int>> seen;
  for (std::size_t i = 0; i < in.nvlink_pairs.size(); ++i) {
    const NvLinkPair& p = in.nvlink_pairs[i];
    if (!seen.insert({std::min(p.a, p.b), std::max(p.a, p.b)}).second)
      out.push_back({"intra.nvlink_pairs[" + std::to_string(i) + "]",
                     "pair " + std::to_string(std::min(p.a, p.b)) + "-" +
                         std::to_string(std::max(p.a, p.b)) + " listed twice"});
  }
}

// A device under a switch sits on that switch's socket: the two figures come from different
// pages of the vendor's documents and a mismatch means one of them was misread.
void check_switch_sockets(const InstanceSpec& in, bool gpus, std::vector<InstanceProblem>& out) {
  const std::string field = gpus ? "host.gpu_socket" : "host.nic_socket";
  if (written(in, field) != Written::Known) return;
  const std::vector<int>& socket_of = gpus ? in.gpu_socket : in.nic_socket;
  for (std::size_t i = 0; i < in.pcie_switches.size(); ++i) {
    const PcieSwitchSpec& s = in.pcie_switches[i];
    for (const int x : gpus ? s.gpus : s.nics) {
      const std::size_t at = static_cast<std::size_t>(x);
      if (at < socket_of.size() && socket_of[at] != s.socket)
        out.push_back({field, std::string(gpus ? "GPU " : "NIC ") + std::to_string(x) +
                                  " on socket " + std::to_string(socket_of[at]) +
                                  " but its switch host.pcie_switches[" + std::to_string(i) +
                                  "] is on socket " + std::to_string(s.socket)});
    }
  }
}

void check_network(const InstanceSpec& in, std::vector<InstanceProblem>& out) {
  const bool has_version = written(in, "network.efa_version") != Written::No;
  if (has_version != (in.transport == NetTransport::Efa))
    out.push_back({"network.efa_version", "present exactly when the transport is efa"});
}

/// Splits a loader message "<origin>: <field>: <what>" into field and what. A field path has
/// no spaces; a syntax error ("<origin>:<line>:<column>: <what>") becomes "line L, column C:
/// <what>" with no field, as does a message about the whole document.
InstanceProblem from_loader(const std::string& message, const std::string& origin) {
  std::string rest = message;
  if (rest.starts_with(origin + ":") && !rest.starts_with(origin + ": ")) {
    rest.erase(0, origin.size() + 1);
    const std::size_t mid = rest.find(':');
    const std::size_t end = rest.find(": ");
    if (mid != std::string::npos && end != std::string::npos && mid < end)
      return {"", "line " + rest.substr(0, mid) + ", column " +
                      rest.substr(mid + 1, end - mid - 1) + rest.substr(end)};
    return {"", rest};
  }
  if (rest.starts_with(origin + ": ")) rest.erase(0, origin.size() + 2);
  const std::size_t colon = rest.find(": ");
  if (colon == std::string::npos || colon == 0 ||
      rest.substr(0, colon).find(' ') != std::string::npos)
    return {"", rest};
  return {rest.substr(0, colon), rest.substr(colon + 2)};
}

}  // namespace

const std::vector<std::string>& instance_figure_paths() {
  static const std::vector<std::string> paths = [] {
    std::vector<std::string> out;
    for (const FigureKey& f : kFigures) out.emplace_back(f.path);
    return out;
  }();
  return paths;
}

std::vector<InstanceProblem> check_catalog_rules(const InstanceSpec& inst) {
  std::vector<InstanceProblem> out;
  check_gpu(inst, out);
  check_figures(inst, out);
  check_intra(inst, out);
  check_switch_sockets(inst, true, out);
  check_switch_sockets(inst, false, out);
  check_network(inst, out);
  return out;
}

std::vector<InstanceProblem> check_instance_text(const std::string& text, const std::string& origin,
                                                 const std::string& expected_name) {
  Expected<InstanceSpec> inst = parse_instance_json(text, origin, expected_name);
  if (!inst) return {from_loader(inst.error().message, origin)};
  return check_catalog_rules(*inst);
}

std::vector<InstanceProblem> check_instance_file(const std::string& path) {
  Expected<std::string> text = read_text_file(path);
  if (!text) return {from_loader(text.error().message, path)};
  return check_instance_text(*text, path, instance_file_stem(path));
}

}  // namespace topotune::topo
