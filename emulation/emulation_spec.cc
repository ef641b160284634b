#include "emulation/emulation_spec.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "core/checked_json.h"
#include "core/string_printf.h"
#include "topology/model_defaults.h"

namespace topotune::emu {
namespace {

using nlohmann::json;

constexpr const char* kStateSchema = "topotune.emulation/1";

Expected<void> check_rate(const char* flag, BytesPerSec rate) {
  const double bits = bits_per_sec(rate);
  if (bits >= kMinShapedBitsPerSec && bits <= kMaxShapedBitsPerSec) return {};
  return fail(Errc::InvalidArgument,
              string_printf("%s must be in 2mbit..1tbit, got %g bit/s", flag, bits));
}

}  // namespace

Expected<void> check_spec(const EmulationSpec& s) {
  if (s.nodes < 1 || s.nodes > 64) return fail(Errc::InvalidArgument, "--nodes must be 1..64");
  if (s.ranks_per_node < 1 || s.ranks_per_node > topo::kMaxGpusPerHost) {
    return fail(Errc::InvalidArgument, "--ranks-per-node must be 1.." +
                                           std::to_string(topo::kMaxGpusPerHost) + ", got " +
                                           std::to_string(s.ranks_per_node));
  }
  if (s.racks < 1 || s.racks > s.nodes)
    return fail(Errc::InvalidArgument, "--racks must be 1..nodes");
  if (s.nodes % s.racks != 0) {
    return fail(Errc::InvalidArgument, "--nodes must be a multiple of --racks (equal racks)");
  }
  TT_TRY_VOID(check_rate("--nic", s.nic_rate));
  if (s.uplink_rate) TT_TRY_VOID(check_rate("--uplink", *s.uplink_rate));
  if (s.prefix.empty() || s.prefix.size() > 4 ||
      !std::all_of(s.prefix.begin(), s.prefix.end(),
                   [](char c) { return std::isalnum(static_cast<unsigned char>(c)); })) {
    return fail(Errc::InvalidArgument, "--prefix must be 1-4 letters or digits");
  }
  return {};
}

std::string emulation_state_json(const EmulationSpec& s) {
  // Rates in bits per second as doubles, 0 for an unshaped uplink: the format of the files
  // existing clusters left behind.
  const json j = {{"schema", kStateSchema},
                  {"nodes", s.nodes},
                  {"ranks_per_node", s.ranks_per_node},
                  {"nic_bits_per_sec", bits_per_sec(s.nic_rate)},
                  {"racks", s.racks},
                  {"uplink_bits_per_sec", s.uplink_rate ? bits_per_sec(*s.uplink_rate) : 0.0},
                  {"prefix", s.prefix},
                  {"congestion_control", s.congestion_control}};
  return j.dump(2) + "\n";
}

Expected<EmulationSpec> parse_emulation_state(const std::string& text, const std::string& origin,
                                              const std::string& dir) {
  try {
    const Expected<json> checked = parse_checked_json<json>(text);
    if (!checked) return fail(Errc::ParseError, origin + ": " + checked.error().message);
    const json& j = *checked;
    if (j.value("schema", std::string()) != kStateSchema)
      return fail(Errc::ParseError, origin + ": wrong schema");
    EmulationSpec s;
    s.dir = dir;
    s.nodes = j.at("nodes").get<int>();
    s.ranks_per_node = j.at("ranks_per_node").get<int>();
    s.nic_rate = BytesPerSec(j.at("nic_bits_per_sec").get<double>() / 8.0);
    s.racks = j.at("racks").get<int>();
    const double uplink = j.at("uplink_bits_per_sec").get<double>();
    if (uplink > 0) s.uplink_rate = BytesPerSec(uplink / 8.0);
    s.prefix = j.at("prefix").get<std::string>();
    s.congestion_control = j.value("congestion_control", std::string("cubic"));
    return s;
  } catch (const json::exception& e) {
    return fail(Errc::ParseError, origin + ": " + e.what());
  }
}

}  // namespace topotune::emu
