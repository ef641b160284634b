// topotune.instance/1 reader (docs/instance-schema.md). Units are converted here, once.

#include "topology/instance_loader.h"

#include <algorithm>
#include <array>
#include <sstream>

#include "core/input_file.h"
#include "core/name_check.h"
#include "core/string_printf.h"
#include "topology/instance_loader_detail.h"
#include "topology/instance_validate.h"
#include "topology/model_defaults.h"

namespace topotune::topo {
namespace detail {
namespace {

constexpr double kGiB = 1073741824.0;

// Reads figure objects of one instance and records their sources, tags and unknowns.
struct Figures {
  InstanceSpec& inst;

  // The figure's value, or nullptr when it is unknown or absent (then listed in unknowns).
  Expected<const Json*> get(const Json& section, const JsonPath& sp, const char* key,
                            bool required) {
    const JsonPath at = sp / key;
    const Json* f = find_member(section, key);
    if (!f) {
      if (required) return at.error("missing (required figure)");
      inst.unknowns.push_back(at.path);
      inst.sources[at.path] = kAbsentFigureSource;
      return static_cast<const Json*>(nullptr);
    }
    TT_TRY_VOID(check_object(*f, at, {"value", "source", "tag", "unknown", "note", "published"}));
    if (find_member(*f, "unknown")) {
      TT_TRY(bool unknown, read_bool(f->at("unknown"), at / "unknown"));
      const Json* note = find_member(*f, "note");
      if (!unknown || !note || find_member(*f, "value") || find_member(*f, "source") ||
          find_member(*f, "tag"))
        return at.error("a figure is {\"value\", \"source\"} or {\"unknown\": true, \"note\"}");
      TT_TRY(std::string text, read_string(*note, at / "note"));
      if (required) return at.error("is required and cannot be unknown (" + text + ")");
      if (const Json* published = find_member(*f, "published")) {
        TT_TRY(text, read_published(*published, at / "published", text));
      }
      inst.unknowns.push_back(at.path);
      inst.sources[at.path] = "unknown: " + text;
      return static_cast<const Json*>(nullptr);
    }
    if (find_member(*f, "published")) {
      return (at / "published")
          .error(
              "only an unknown figure lists the published figures that "
              "disagree (a known one has its value and source)");
    }
    const Json* value = find_member(*f, "value");
    const Json* source = find_member(*f, "source");
    if (!value || !source || find_member(*f, "note"))
      return at.error("a figure is {\"value\", \"source\"} or {\"unknown\": true, \"note\"}");
    TT_TRY(inst.sources[at.path], read_string(*source, at / "source"));
    if (const Json* tag = find_member(*f, "tag")) {
      TT_TRY(std::string t, read_string(*tag, at / "tag"));
      if (t != "derived" && t != "secondary" && t != "unverified" && t != "disagree")
        return (at / "tag").error("must be derived, secondary, unverified or disagree");
      inst.tags[at.path] = t;
    }
    return value;
  }

  // An unknown figure's "published": the figures sources give that disagree, each
  // {"value", "source"}, at least two different values; appended to the note the catalog
  // prints. Two figures have them, the ones the planner brackets: the fp16/bf16 peak (advice
  // computed at both ends) and the GPU memory (what fits, checked against the smallest).
  Expected<std::string> read_published(const Json& list, const JsonPath& at, std::string note) {
    const bool peak = at.path.ends_with("gpu.peak_fp16_TFLOPS.published");
    const bool memory = at.path.ends_with("gpu.memory_GiB.published");
    if (!peak && !memory) {
      return at.error(
          "only gpu.peak_fp16_TFLOPS and gpu.memory_GiB list published figures (the planner "
          "brackets them)");
    }
    if (!list.is_array() || list.size() < 2 || list.size() > 8) {
      return at.error("expected 2 to 8 {\"value\", \"source\"} objects");
    }
    PublishedRange range{0, 0};
    note += "; published figures that disagree:";
    for (std::size_t i = 0; i < list.size(); ++i) {
      const JsonPath ai = at.at(i);
      TT_TRY_VOID(check_object(list[i], ai, {"value", "source"}));
      const Json* value = find_member(list[i], "value");
      const Json* source = find_member(list[i], "source");
      if (!value || !source) return ai.error("needs \"value\" and \"source\"");
      TT_TRY(double x, read_rate(*value, ai / "value"));
      // The planner times compute at a peak: the range --peak-tflops accepts (100 PFLOP/s).
      if (peak && x > 1e5)
        return (ai / "value")
            .error("must be at most 100000 (TFLOPS), got " + string_printf("%g", x));
      TT_TRY(std::string from, read_string(*source, ai / "source"));
      range.low = i == 0 ? x : std::min(range.low, x);
      range.high = i == 0 ? x : std::max(range.high, x);
      note += (i == 0 ? " " : "; ") + string_printf("%g", x) + " (" + from + ")";
    }
    if (!(range.low < range.high)) return at.error("lists one value: give it as the figure");
    const double unit = peak ? 1e12 : kGiB;
    (peak ? inst.gpu.peak_fp16_published : inst.gpu.memory_published) =
        PublishedRange{range.low * unit, range.high * unit};
    return note;
  }

  Expected<std::optional<BytesPerSec>> rate(const Json& s, const JsonPath& sp, const char* key,
                                            double unit) {
    TT_TRY(const Json* v, get(s, sp, key, false));
    if (!v) return std::optional<BytesPerSec>();
    TT_TRY(double x, read_rate(*v, sp / key));
    return std::optional<BytesPerSec>(BytesPerSec(x * unit));
  }
};

/// One of `values`, by the name its enum's one name table (topology/names.cc) gives it.
template <class E, std::size_t N>
Expected<E> read_enum(const Json& v, const JsonPath& at, const char* (*name_of)(E),
                      const std::array<E, N>& values) {
  TT_TRY(std::string s, read_string(v, at));
  std::string list;
  for (const E e : values) {
    if (s == name_of(e)) return e;
    list += std::string(list.empty() ? "" : ", ") + name_of(e);
  }
  return at.error("'" + s + "' is not one of " + list);
}

// The values a catalog file may name (GpuArch::Unknown is what the loader never reads).
constexpr std::array kFileArchs = {GpuArch::Volta, GpuArch::Turing, GpuArch::Ampere,
                                   GpuArch::Hopper, GpuArch::Blackwell};
constexpr std::array kFileFabrics = {IntraFabric::NvSwitch, IntraFabric::NvLinkMesh,
                                     IntraFabric::PcieOnly};
constexpr std::array kFileTransports = {NetTransport::Efa,           NetTransport::InfiniBand,
                                        NetTransport::Roce,          NetTransport::Tcp,
                                        NetTransport::GpuDirectTcpx, NetTransport::GpuDirectTcpxo};

Expected<std::vector<int>> read_int_list(const Json& v, const JsonPath& at, int hi) {
  if (!v.is_array()) return at.error("expected an array, got " + json_type_name(v));
  if (v.size() > 4096) return at.error("too many entries", Errc::InvalidArgument);
  std::vector<int> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    TT_TRY(std::int64_t x, read_int(v[i], at.at(i), 0, hi));
    out.push_back(static_cast<int>(x));
  }
  return out;
}

Expected<void> read_gpu(const Json& s, const JsonPath& sp, Figures& f) {
  InstanceSpec& in = f.inst;
  TT_TRY_VOID(check_object(s, sp,
                           {"count", "model", "arch", "bf16_native", "memory_GiB",
                            "peak_fp16_TFLOPS", "peak_fp32_TFLOPS", "peak_tf32_TFLOPS",
                            "memory_bandwidth_GBps", "reduce_bandwidth_GBps", "sm_count"}));
  TT_TRY(const Json* count, f.get(s, sp, "count", true));
  TT_TRY(std::int64_t n, read_int(*count, sp / "count", 1, kMaxGpusPerHost));
  in.num_gpus = static_cast<int>(n);
  TT_TRY(const Json* model, f.get(s, sp, "model", true));
  TT_TRY(in.gpu.model, read_string(*model, sp / "model"));
  TT_TRY(const Json* arch, f.get(s, sp, "arch", true));
  TT_TRY(in.gpu.arch, read_enum(*arch, sp / "arch", arch_name, kFileArchs));
  // Ampere and later compute bf16 natively; a file that says so explicitly wins.
  in.gpu.bf16_native = in.gpu.arch == GpuArch::Ampere || in.gpu.arch == GpuArch::Hopper ||
                       in.gpu.arch == GpuArch::Blackwell;
  if (find_member(s, "bf16_native")) {
    TT_TRY(const Json* bf16, f.get(s, sp, "bf16_native", false));
    if (bf16) {
      TT_TRY(in.gpu.bf16_native, read_bool(*bf16, sp / "bf16_native"));
    }
  }
  TT_TRY(auto mem, f.rate(s, sp, "memory_GiB", kGiB));
  if (mem) in.gpu.memory = Bytes(static_cast<std::int64_t>(mem->value));
  TT_TRY(auto fp16, f.rate(s, sp, "peak_fp16_TFLOPS", 1e12));
  in.gpu.peak_fp16_flops = fp16 ? fp16->value : 0;
  TT_TRY(auto fp32, f.rate(s, sp, "peak_fp32_TFLOPS", 1e12));
  in.gpu.peak_fp32_flops = fp32 ? fp32->value : 0;
  // Optional: only the GPUs whose TF32 tensor rate a datasheet was read for have it.
  if (find_member(s, "peak_tf32_TFLOPS")) {
    TT_TRY(auto tf32, f.rate(s, sp, "peak_tf32_TFLOPS", 1e12));
    if (tf32) in.gpu.peak_tf32_flops = tf32->value;
  }
  TT_TRY(in.gpu.memory_bandwidth, f.rate(s, sp, "memory_bandwidth_GBps", 1e9));
  TT_TRY(in.gpu.reduce_bandwidth, f.rate(s, sp, "reduce_bandwidth_GBps", 1e9));
  TT_TRY(const Json* sms, f.get(s, sp, "sm_count", false));
  if (sms) {
    TT_TRY(std::int64_t n, read_int(*sms, sp / "sm_count", 1, kMaxSmCount));
    in.gpu.sm_count = static_cast<int>(n);
  }
  return {};
}

Expected<void> read_pairs(const Json& v, const JsonPath& at, InstanceSpec& in) {
  if (!v.is_array()) return at.error("expected an array, got " + json_type_name(v));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_array() || v[i].size() != 3) return at.at(i).error("expected [gpuA, gpuB, links]");
    TT_TRY(std::int64_t a, read_int(v[i][0], at.at(i), 0, kMaxGpusPerHost));
    TT_TRY(std::int64_t b, read_int(v[i][1], at.at(i), 0, kMaxGpusPerHost));
    TT_TRY(std::int64_t l, read_int(v[i][2], at.at(i), 1, 64));
    in.nvlink_pairs.push_back({static_cast<int>(a), static_cast<int>(b), static_cast<int>(l)});
  }
  return {};
}

Expected<void> read_intra(const Json& s, const JsonPath& sp, Figures& f) {
  InstanceSpec& in = f.inst;
  TT_TRY_VOID(check_object(s, sp,
                           {"fabric", "nvlink_GBps_per_link", "nvlinks_per_gpu", "nvlink_pairs",
                            "nvls", "nvlink_domain_hosts"}));
  TT_TRY(const Json* fabric, f.get(s, sp, "fabric", true));
  TT_TRY(in.fabric, read_enum(*fabric, sp / "fabric", fabric_name, kFileFabrics));
  const bool nv = in.fabric != IntraFabric::PcieOnly;
  for (const char* key : {"nvlink_GBps_per_link", "nvlinks_per_gpu"})
    if (!nv && find_member(s, key)) return (sp / key).error("only for nvswitch or nvlink_mesh");
  if (in.fabric != IntraFabric::NvLinkMesh && find_member(s, "nvlink_pairs"))
    return (sp / "nvlink_pairs").error("only for nvlink_mesh");
  if (nv) {
    TT_TRY(const Json* bw, f.get(s, sp, "nvlink_GBps_per_link", true));
    TT_TRY(double gbps, read_rate(*bw, sp / "nvlink_GBps_per_link"));
    in.nvlink_bandwidth_per_link = gbyte_per_sec(gbps);
    TT_TRY(const Json* links, f.get(s, sp, "nvlinks_per_gpu", true));
    TT_TRY(std::int64_t n, read_int(*links, sp / "nvlinks_per_gpu", 1, 64));
    in.nvlinks_per_gpu = static_cast<int>(n);
  }
  if (in.fabric == IntraFabric::NvLinkMesh) {
    TT_TRY(const Json* pairs, f.get(s, sp, "nvlink_pairs", true));
    TT_TRY_VOID(read_pairs(*pairs, sp / "nvlink_pairs", in));
  }
  if (find_member(s, "nvls")) {
    TT_TRY(const Json* nvls, f.get(s, sp, "nvls", false));
    if (nvls) {
      TT_TRY(in.nvls, read_bool(*nvls, sp / "nvls"));
    }
  }
  // Absent means NVLink ends at the host (not an unknown figure: every older file says so).
  if (find_member(s, "nvlink_domain_hosts")) {
    if (in.fabric != IntraFabric::NvSwitch)
      return (sp / "nvlink_domain_hosts").error("only for nvswitch");
    TT_TRY(const Json* dom, f.get(s, sp, "nvlink_domain_hosts", false));
    if (dom) {
      TT_TRY(std::int64_t n, read_int(*dom, sp / "nvlink_domain_hosts", 1, kMaxNvlinkDomainHosts));
      in.nvlink_domain_hosts = static_cast<int>(n);
    }
  }
  return {};
}

Expected<void> read_switches(const Json& v, const JsonPath& at, InstanceSpec& in) {
  if (!v.is_array()) return at.error("expected an array, got " + json_type_name(v));
  if (v.size() > 256) return at.error("too many PCIe switches", Errc::InvalidArgument);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const JsonPath si = at.at(i);
    TT_TRY_VOID(check_object(v[i], si, {"socket", "gpus", "nics"}));
    for (const char* key : {"socket", "gpus", "nics"})
      if (!find_member(v[i], key)) return (si / key).error("missing");
    PcieSwitchSpec sw;
    TT_TRY(std::int64_t socket, read_int(v[i]["socket"], si / "socket", 0, kMaxSocketsPerHost));
    sw.socket = static_cast<int>(socket);
    TT_TRY(sw.gpus, read_int_list(v[i]["gpus"], si / "gpus", kMaxGpusPerHost));
    TT_TRY(sw.nics, read_int_list(v[i]["nics"], si / "nics", kMaxNicsPerHost));
    in.pcie_switches.push_back(std::move(sw));
  }
  return {};
}

Expected<void> read_host(const Json& s, const JsonPath& sp, Figures& f) {
  InstanceSpec& in = f.inst;
  TT_TRY_VOID(
      check_object(s, sp,
                   {"cpu_model", "cpu_sockets", "host_memory_GiB", "cpu_interconnect_GBps",
                    "cpu_reduce_GBps", "pcie_GBps", "pcie_switches", "gpu_socket", "nic_socket"}));
  TT_TRY(const Json* cpu, f.get(s, sp, "cpu_model", false));
  if (cpu) {
    TT_TRY(in.cpu_model, read_string(*cpu, sp / "cpu_model"));
  }
  TT_TRY(const Json* sockets, f.get(s, sp, "cpu_sockets", true));
  TT_TRY(std::int64_t n, read_int(*sockets, sp / "cpu_sockets", 1, kMaxSocketsPerHost));
  in.cpu_sockets = static_cast<int>(n);
  TT_TRY(auto mem, f.rate(s, sp, "host_memory_GiB", kGiB));
  if (mem) in.host_memory = Bytes(static_cast<std::int64_t>(mem->value));
  TT_TRY(in.cpu_interconnect_bandwidth, f.rate(s, sp, "cpu_interconnect_GBps", 1e9));
  TT_TRY(in.cpu_reduce_bandwidth, f.rate(s, sp, "cpu_reduce_GBps", 1e9));
  TT_TRY(in.pcie_bandwidth, f.rate(s, sp, "pcie_GBps", 1e9));
  TT_TRY(const Json* switches, f.get(s, sp, "pcie_switches", false));
  if (switches) {
    TT_TRY_VOID(read_switches(*switches, sp / "pcie_switches", in));
  }
  TT_TRY(const Json* gs, f.get(s, sp, "gpu_socket", false));
  if (gs) {
    TT_TRY(in.gpu_socket, read_int_list(*gs, sp / "gpu_socket", kMaxSocketsPerHost));
  }
  TT_TRY(const Json* ns, f.get(s, sp, "nic_socket", false));
  if (ns) {
    TT_TRY(in.nic_socket, read_int_list(*ns, sp / "nic_socket", kMaxSocketsPerHost));
  }
  return {};
}

Expected<void> read_network(const Json& s, const JsonPath& sp, Figures& f) {
  InstanceSpec& in = f.inst;
  TT_TRY_VOID(
      check_object(s, sp, {"nics", "nic_Gbps", "transport", "efa_version", "gpudirect_rdma"}));
  TT_TRY(const Json* nics, f.get(s, sp, "nics", true));
  TT_TRY(std::int64_t n, read_int(*nics, sp / "nics", 1, kMaxNicsPerHost));
  in.num_nics = static_cast<int>(n);
  TT_TRY(const Json* rate, f.get(s, sp, "nic_Gbps", true));
  TT_TRY(double gbps, read_rate(*rate, sp / "nic_Gbps"));
  in.nic_bandwidth = gbit_per_sec(gbps);
  TT_TRY(const Json* transport, f.get(s, sp, "transport", true));
  TT_TRY(in.transport, read_enum(*transport, sp / "transport", transport_name, kFileTransports));
  if (find_member(s, "efa_version")) {
    TT_TRY(const Json* efa, f.get(s, sp, "efa_version", false));
    if (efa) {
      TT_TRY(in.efa_version, read_int(*efa, sp / "efa_version", 1, 16));
    }
  }
  TT_TRY(const Json* gdr, f.get(s, sp, "gpudirect_rdma", true));
  TT_TRY(in.gpudirect_rdma, read_bool(*gdr, sp / "gpudirect_rdma"));
  return {};
}

}  // namespace

Expected<InstanceSpec> read_instance(const Json& v, const JsonPath& at,
                                     const std::string& expected_name) {
  TT_TRY_VOID(check_object(v, at,
                           {"schema", "name", "vendor", "description", "sagemaker_name", "gpu",
                            "intra", "host", "network"}));
  for (const char* key : {"schema", "name", "vendor", "gpu", "intra", "host", "network"})
    if (!find_member(v, key)) return (at / key).error("missing");
  TT_TRY(std::string schema, read_string(v["schema"], at / "schema"));
  if (schema != kInstanceSchema)
    return (at / "schema")
        .error("expected \"" + std::string(kInstanceSchema) + "\", got \"" + schema + "\"");
  InstanceSpec in;
  TT_TRY(in.name, read_string(v["name"], at / "name"));
  // Instance names reach emitted launch files and the terminal: a closed character set.
  if (auto ok = check_name(in.name, "instance name"); !ok) {
    return (at / "name").error(ok.error().message);
  }
  if (!expected_name.empty() && in.name != expected_name)
    return (at / "name")
        .error("\"" + in.name + "\" does not match the file name \"" + expected_name + "\"");
  TT_TRY(in.vendor, read_string(v["vendor"], at / "vendor"));
  if (in.vendor != "aws" && in.vendor != "nvidia" && in.vendor != "gcp" && in.vendor != "azure" &&
      in.vendor != "custom")
    return (at / "vendor").error("must be aws, nvidia, gcp, azure or custom");
  if (const Json* d = find_member(v, "description")) {
    TT_TRY(in.description, read_string(*d, at / "description"));
  }
  Figures f{in};
  if (find_member(v, "sagemaker_name")) {
    TT_TRY(const Json* sm, f.get(v, at, "sagemaker_name", false));
    if (sm && !sm->is_null()) {
      TT_TRY(in.sagemaker_name, read_string(*sm, at / "sagemaker_name"));
      if (auto ok = check_name(*in.sagemaker_name, "sagemaker_name"); !ok) {
        return (at / "sagemaker_name").error(ok.error().message);
      }
    }
  }
  TT_TRY_VOID(read_gpu(v["gpu"], at / "gpu", f));
  TT_TRY_VOID(read_intra(v["intra"], at / "intra", f));
  TT_TRY_VOID(read_host(v["host"], at / "host", f));
  TT_TRY_VOID(read_network(v["network"], at / "network", f));
  in = complete_instance(std::move(in));
  auto valid = validate_instance(in);
  if (!valid) return at.error(valid.error().message, valid.error().code);
  return in;
}

Expected<void> apply_override(InstanceSpec& in, const std::string& figure, const Json& value,
                              const JsonPath& at, const std::string& source) {
  auto rate = [&](std::optional<BytesPerSec>& out, double unit) -> Expected<void> {
    TT_TRY(double x, read_rate(value, at));
    out = BytesPerSec(x * unit);
    return {};
  };
  std::optional<BytesPerSec> r;
  if (figure == "gpu.memory_GiB") {
    // What a sharded plan needs to say what fits, where the catalog does not know it.
    TT_TRY_VOID(rate(r, kGiB));
    in.gpu.memory = Bytes(static_cast<std::int64_t>(r->value));
    in.gpu.memory_published.reset();  // known now
  } else if (figure == "gpu.memory_bandwidth_GBps") {
    TT_TRY_VOID(rate(in.gpu.memory_bandwidth, 1e9));
  } else if (figure == "gpu.reduce_bandwidth_GBps") {
    TT_TRY_VOID(rate(in.gpu.reduce_bandwidth, 1e9));
  } else if (figure == "host.pcie_GBps") {
    TT_TRY_VOID(rate(in.pcie_bandwidth, 1e9));
  } else if (figure == "host.cpu_interconnect_GBps") {
    TT_TRY_VOID(rate(in.cpu_interconnect_bandwidth, 1e9));
  } else if (figure == "host.cpu_reduce_GBps") {
    TT_TRY_VOID(rate(in.cpu_reduce_bandwidth, 1e9));
  } else if (figure == "gpu.peak_fp16_TFLOPS" || figure == "gpu.peak_fp32_TFLOPS") {
    TT_TRY_VOID(rate(r, 1e12));
    (figure == "gpu.peak_fp16_TFLOPS" ? in.gpu.peak_fp16_flops : in.gpu.peak_fp32_flops) = r->value;
    if (figure == "gpu.peak_fp16_TFLOPS") in.gpu.peak_fp16_published.reset();  // known now
  } else if (figure == "network.nic_Gbps" || figure == "intra.nvlink_GBps_per_link") {
    const bool nic = figure == "network.nic_Gbps";
    TT_TRY_VOID(rate(r, nic ? 1e9 / 8 : 1e9));
    (nic ? in.nic_bandwidth : in.nvlink_bandwidth_per_link) = *r;
  } else if (figure == "intra.nvlink_domain_hosts") {
    // The NVLink partition a job got can be smaller than the rack (an IMEX domain of 16 hosts
    // in an NVL72 rack of 18); the builder checks the fabric is NVSwitch.
    TT_TRY(std::int64_t n, read_int(value, at, 1, kMaxNvlinkDomainHosts));
    in.nvlink_domain_hosts = static_cast<int>(n);
  } else if (figure == "network.gpudirect_rdma") {
    TT_TRY(in.gpudirect_rdma, read_bool(value, at));
  } else if (figure == "network.transport") {
    TT_TRY(in.transport, read_enum(value, at, transport_name, kFileTransports));
  } else {
    return at.error(
        "cannot be overridden (overridable: gpu.memory_GiB, gpu.memory_bandwidth_GBps, "
        "gpu.reduce_bandwidth_GBps, "
        "gpu.peak_fp16_TFLOPS, gpu.peak_fp32_TFLOPS, intra.nvlink_GBps_per_link, "
        "intra.nvlink_domain_hosts, host.pcie_GBps, "
        "host.cpu_interconnect_GBps, host.cpu_reduce_GBps, network.nic_Gbps, "
        "network.gpudirect_rdma, network.transport)");
  }
  std::erase(in.unknowns, figure);
  in.sources[figure] = source;
  in.tags.erase(figure);
  return {};
}

}  // namespace detail

Expected<InstanceSpec> parse_instance_json(const std::string& text, const std::string& origin,
                                           const std::string& expected_name) {
  TT_TRY(detail::Json doc, detail::parse_json_text(text, origin));
  return detail::read_instance(doc, detail::JsonPath{&origin, ""}, expected_name);
}

Expected<std::string> read_text_file(const std::string& path) {
  Expected<std::string> text = read_input_file(path, "input file");
  // A missing instance or cluster file is an I/O error here, as it always was (not NotFound,
  // which names an unknown catalog instance).
  if (!text && text.error().code == Errc::NotFound) {
    return fail(Errc::Io, std::move(text).error().message);
  }
  return text;
}

std::string instance_file_stem(const std::string& path) {
  std::string stem =
      path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  if (stem.size() > 5 && stem.ends_with(".json")) stem.resize(stem.size() - 5);
  return stem;
}

Expected<InstanceSpec> load_instance_file(const std::string& path) {
  TT_TRY(std::string text, read_text_file(path));
  return parse_instance_json(text, path, instance_file_stem(path));
}

}  // namespace topotune::topo
