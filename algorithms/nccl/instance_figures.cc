// A narrow reader of catalog files for the NCCL model (see nccl_system.h).

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "algorithms/nccl/nccl_system.h"

#ifndef TOPOTUNE_DATA_DIR
#define TOPOTUNE_DATA_DIR "data"
#endif

namespace topotune::algo {
namespace {

using nlohmann::json;

/// The value of a figure object, or null when unknown or absent.
const json* figure(const json& j, const char* section, const char* key) {
  if (!j.contains(section) || !j.at(section).contains(key)) return nullptr;
  const json& f = j.at(section).at(key);
  if (!f.is_object() || !f.contains("value") || f.at("value").is_null()) return nullptr;
  return &f.at("value");
}

Expected<topo::GpuArch> arch_of(const std::string& s) {
  if (s == "volta") return topo::GpuArch::Volta;
  if (s == "turing") return topo::GpuArch::Turing;
  if (s == "ampere") return topo::GpuArch::Ampere;
  if (s == "hopper") return topo::GpuArch::Hopper;
  if (s == "blackwell") return topo::GpuArch::Blackwell;
  return topo::GpuArch::Unknown;
}

Expected<topo::InstanceSpec> parse_figures(const json& j, const std::string& path) {
  topo::InstanceSpec s;
  const auto need = [&](const char* sec, const char* key) -> Expected<const json*> {
    const json* v = figure(j, sec, key);
    if (v == nullptr) {
      return fail(Errc::ParseError, path + ": missing figure " + sec + "." + key);
    }
    return v;
  };
  s.name = j.value("name", std::string());
  TT_TRY(const json* count, need("gpu", "count"));
  s.num_gpus = count->get<int>();
  TT_TRY(const json* arch, need("gpu", "arch"));
  TT_TRY(s.gpu.arch, arch_of(arch->get<std::string>()));
  TT_TRY(const json* fabric, need("intra", "fabric"));
  const std::string fab = fabric->get<std::string>();
  s.fabric = fab == "nvswitch"      ? topo::IntraFabric::NvSwitch
             : fab == "nvlink_mesh" ? topo::IntraFabric::NvLinkMesh
                                    : topo::IntraFabric::PcieOnly;
  if (const json* v = figure(j, "intra", "nvlink_GBps_per_link")) {
    s.nvlink_bandwidth_per_link = gbyte_per_sec(v->get<double>());
  }
  if (const json* v = figure(j, "intra", "nvlinks_per_gpu")) s.nvlinks_per_gpu = v->get<int>();
  if (const json* v = figure(j, "intra", "nvls")) s.nvls = v->get<bool>();
  if (const json* v = figure(j, "host", "pcie_GBps")) s.pcie_bandwidth = gbyte_per_sec(v->get<double>());
  TT_TRY(const json* nics, need("network", "nics"));
  s.num_nics = nics->get<int>();
  TT_TRY(const json* rate, need("network", "nic_Gbps"));
  s.nic_bandwidth = gbit_per_sec(rate->get<double>());
  TT_TRY(const json* transport, need("network", "transport"));
  const std::string tr = transport->get<std::string>();
  s.transport = tr == "efa"          ? topo::NetTransport::Efa
                : tr == "infiniband" ? topo::NetTransport::InfiniBand
                                     : topo::NetTransport::Tcp;
  if (const json* v = figure(j, "network", "efa_version")) s.efa_version = v->get<int>();
  TT_TRY(const json* gdr, need("network", "gpudirect_rdma"));
  s.gpudirect_rdma = gdr->get<bool>();
  return s;
}

}  // namespace

std::string data_dir() {
  if (const char* env = std::getenv("TOPOTUNE_DATA_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return TOPOTUNE_DATA_DIR;
}

Expected<topo::InstanceSpec> read_instance_figures(const std::string& path) {
  std::ifstream in(path);
  if (!in) return fail(Errc::NotFound, "cannot read instance file '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  try {
    const json j = json::parse(ss.str());
    return parse_figures(j, path);
  } catch (const json::exception& e) {
    return fail(Errc::ParseError, path + ": " + e.what());
  }
}

}  // namespace topotune::algo
