#include "measurement/nccl_tests_parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>
#include <sstream>
#include <vector>

#include "core/input_file.h"

namespace topotune::rt {
namespace {

/// Column layout of the result table, fixed by the header or by the first row.
struct Layout {
  bool redop = true;
  bool root = true;
  bool in_place = true;
  bool wrong_is_count = true;  ///< "#wrong" (count) rather than the older "error" (max error)
  std::size_t fields() const { return 3 + (redop ? 1 : 0) + (root ? 1 : 0) + (in_place ? 8 : 4); }
};

struct State {
  Measurement m;
  std::optional<Layout> layout;
  std::set<int> ranks_seen;
  std::set<std::string> hosts;
  std::optional<sched::Collective> collective;
  std::string redop;  ///< the first row's redop column ("" without one)
  std::string root;   ///< the first row's root column ("" without one)
};

std::vector<std::string_view> split(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    const std::size_t start = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

/// Drops what launchers prepend: "[1,0]<stdout>:" (mpirun --tag-output), "0: " (srun -l).
std::string_view strip_prefix(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
  if (!line.empty() && line.front() == '[') {
    const std::size_t close = line.find("]<std");
    const std::size_t colon = line.find(">:");
    if (close != std::string_view::npos && colon != std::string_view::npos && colon > close) {
      line.remove_prefix(colon + 2);
    }
  }
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  std::size_t j = i;
  while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
  if (j > i && j < line.size() && line[j] == ':') line.remove_prefix(j + 1);
  return line;
}

template <class T>
bool to_number(std::string_view s, T& out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

bool to_double(std::string_view s, double& out) {
  // from_chars for double is missing in some libstdc++ builds; strtod on a copy is portable.
  const std::string copy(s);
  char* end = nullptr;
  out = std::strtod(copy.c_str(), &end);
  return !copy.empty() && end == copy.c_str() + copy.size() && std::isfinite(out);
}

/// A token that reads as a number in any notation ("8", "-8", "0x10", "8.5", "1e3"): a line
/// that starts with one is a result row, to be read or refused, never skipped as a banner.
bool is_numeric(std::string_view s) {
  if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' || s[0] == '+' ||
                     s[0] == '.')) {
    return false;
  }
  const std::string copy(s);
  char* end = nullptr;
  std::strtod(copy.c_str(), &end);
  return end == copy.c_str() + copy.size();
}

std::optional<sched::Collective> collective_from_text(std::string_view s) {
  if (s.find("all_reduce") != std::string_view::npos) return sched::Collective::Allreduce;
  if (s.find("all_gather") != std::string_view::npos) return sched::Collective::Allgather;
  if (s.find("reduce_scatter") != std::string_view::npos) return sched::Collective::ReduceScatter;
  if (s.find("broadcast_perf") != std::string_view::npos) return sched::Collective::Broadcast;
  return std::nullopt;
}

/// Keeps the characters a version can have ("2.23.4+cuda12.5"): pasted logs carry anything.
std::string version_token(std::string_view t) {
  std::string out;
  for (char c : t.substr(0, 40)) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-' ||
        c == '_') {
      out += c;
    }
  }
  return out;
}

/// "NCCL version 2.23.4+cuda12.5" or "nccl-library=22304" (MAJOR*10000 + MINOR*100 + PATCH).
void read_version(std::string_view line, State& st) {
  const std::size_t at = line.find("NCCL version ");
  if (at != std::string_view::npos) {
    const auto tok = split(line.substr(at + 13));
    if (!tok.empty()) st.m.nccl_version = version_token(tok[0]);
    return;
  }
  const std::size_t lib = line.find("nccl-library=");
  if (lib != std::string_view::npos && !st.m.nccl_version) {
    const auto tok = split(line.substr(lib + 13));
    int code = 0;
    if (!tok.empty() && to_number(tok[0], code) && code >= 10000) {
      st.m.nccl_version = std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) +
                          "." + std::to_string(code % 100);
    }
  }
}

/// The GPU name after a Rank line's bus id ("device 0 [0x0f] NVIDIA H100 80GB HBM3").
void add_gpu_name(const std::vector<std::string_view>& tok, std::vector<std::string>& names) {
  std::size_t i = 0;
  while (i < tok.size() && !(tok[i].size() > 2 && tok[i].front() == '[' && tok[i].back() == ']'))
    ++i;
  std::string name;
  for (++i; i < tok.size(); ++i) name += (name.empty() ? "" : " ") + std::string(tok[i]);
  if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end())
    names.push_back(name);
}

/// "nGpus N" of the run header: GPUs per thread, refused unless in [1, 2^20] as the
/// measurement reader refuses it (0, -1 or 99999999999999999999 were ignored).
Expected<void> read_ngpus(const std::vector<std::string_view>& tok, State& st) {
  for (std::size_t i = 0; i + 1 < tok.size(); ++i) {
    if (tok[i] != "nGpus") continue;
    int v = 0;
    if (!all_digits(tok[i + 1]) || !to_number(tok[i + 1], v) || v < 1 || v > kMaxMeasuredRanks) {
      return fail(Errc::ParseError, "nGpus: gpus_per_thread must be in [1, " +
                                        std::to_string(kMaxMeasuredRanks) + "], got '" +
                                        std::string(tok[i + 1]) + "'");
    }
    st.m.gpus_per_thread = v;
  }
  return {};
}

/// A "#" line: the run header, a Rank line, or the table's column header.
Expected<void> read_comment(std::string_view body, State& st) {
  const auto tok = split(body);
  if (tok.empty()) return {};
  TT_TRY_VOID(read_ngpus(tok, st));
  if (tok[0] == "Rank" && tok.size() > 1) {
    int r = 0;
    if (to_number(tok[1], r)) st.ranks_seen.insert(r);
    for (std::size_t i = 2; i + 1 < tok.size(); ++i) {
      if (tok[i] == "on") st.hosts.insert(std::string(tok[i + 1]));
    }
    add_gpu_name(tok, st.m.gpu_names);
    return {};
  }
  bool has_size = false, has_count = false;
  int times = 0;
  Layout layout;
  layout.redop = layout.root = false;
  for (std::string_view t : tok) {
    has_size |= t == "size";
    has_count |= t == "count";
    times += t == "time" ? 1 : 0;
    layout.redop |= t == "redop";
    layout.root |= t == "root";
    if (t == "error") layout.wrong_is_count = false;
  }
  if (has_size && has_count && times > 0) {
    layout.in_place = times >= 2;
    st.layout = layout;
  }
  return {};
}

/// Guesses the layout from a row's field count when no header was seen.
std::optional<Layout> layout_from_count(std::size_t n) {
  for (int redop = 1; redop >= 0; --redop) {
    for (int root = redop; root >= 0; --root) {
      for (int ip = 1; ip >= 0; --ip) {
        Layout l{redop == 1, root == 1, ip == 1, true};
        if (l.fields() == n) return l;
      }
    }
  }
  return std::nullopt;
}

Expected<void> read_row(const std::vector<std::string_view>& tok, std::size_t line_no, State& st) {
  const auto where = [&](const std::string& what) {
    return fail(Errc::ParseError, "line " + std::to_string(line_no) + ": " + what);
  };
  if (!st.layout) st.layout = layout_from_count(tok.size());
  if (!st.layout)
    return where("unrecognised result row (" + std::to_string(tok.size()) + " fields)");
  const Layout& l = *st.layout;
  if (tok.size() != l.fields()) {
    return where("truncated or malformed result row: expected " + std::to_string(l.fields()) +
                 " fields, found " + std::to_string(tok.size()));
  }
  if (st.m.rows.empty()) {
    if (l.redop) st.redop = std::string(tok[3]);
    if (l.root) st.root = std::string(tok[3 + (l.redop ? 1 : 0)]);
  }
  MeasurementRow row;
  row.algorithm = "nccl";
  if (!to_number(tok[0], row.bytes) || row.bytes < 0)
    return where("bad size '" + std::string(tok[0]) + "'");
  if (!to_number(tok[1], row.count) || row.count < 0)
    return where("bad count '" + std::string(tok[1]) + "'");
  row.dtype = sched::parse_dtype(tok[2]).value_or(sched::DataType::F32);
  std::size_t c = 3 + (l.redop ? 1 : 0) + (l.root ? 1 : 0);
  double t = 0, ip_t = 0;
  // nccl-tests prints every time it measured, at least a launch (microseconds); 0 or a
  // denormal is no measurement, and would make the bandwidths derived from it inf.
  if (!to_double(tok[c], t) || t < kMinMeasuredTimeUs) {
    return where("bad time '" + std::string(tok[c]) + "' (must be at least 0.001 us)");
  }
  if (!to_double(tok[c + 1], row.algbw_GBps) || !to_double(tok[c + 2], row.busbw_GBps)) {
    return where("bad algbw/busbw");
  }
  row.time_us = t;
  std::int64_t wrong = 0;
  if (l.wrong_is_count && to_number(tok[c + 3], wrong)) row.errors = wrong;
  if (l.in_place) {
    if (!to_double(tok[c + 4], ip_t) || ip_t < kMinMeasuredTimeUs) {
      return where("bad in-place time '" + std::string(tok[c + 4]) +
                   "' (must be at least 0.001 us)");
    }
    row.in_place_time_us = ip_t;
    std::int64_t ip_wrong = 0;
    if (row.errors && l.wrong_is_count && to_number(tok[c + 7], ip_wrong)) *row.errors += ip_wrong;
  }
  if (auto in_range = check_measurement_row(row); !in_range) {
    return where(in_range.error().message);
  }
  st.m.rows.push_back(std::move(row));
  return {};
}

/// Ranks from the busbw/algbw ratio of the row with the largest algbw.
std::optional<int> ranks_from_ratio(const Measurement& m) {
  const MeasurementRow* best = nullptr;
  for (const MeasurementRow& r : m.rows) {
    if (r.algbw_GBps > 0 && (!best || r.algbw_GBps > best->algbw_GBps)) best = &r;
  }
  if (!best || best->algbw_GBps < 0.1) return std::nullopt;
  const double ratio = best->busbw_GBps / best->algbw_GBps;
  const double n =
      m.collective == sched::Collective::Allreduce ? 2.0 / (2.0 - ratio) : 1.0 / (1.0 - ratio);
  if (!std::isfinite(n) || n < 1.5 || n > 1e6) return std::nullopt;
  return static_cast<int>(std::lround(n));
}

/// The collective from the table itself, for logs that do not name their binary (nccl-tests
/// before 2.17 has no "# Collective test starting: all_gather_perf" line). nccl-tests
/// (src/all_gather.cu, src/reduce_scatter.cu, src/common.cu at v2.17.6) prints busbw/algbw =
/// (n-1)/n for all_gather and reduce_scatter, 2(n-1)/n for all_reduce, 1 for broadcast;
/// all_gather's redop column reads "none", reduce_scatter's the operation; broadcast's root is
/// a rank, all_reduce's -1.
sched::Collective collective_from_table(const State& st) {
  const MeasurementRow* best = nullptr;
  for (const MeasurementRow& r : st.m.rows) {
    if (r.algbw_GBps > 0 && (!best || r.algbw_GBps > best->algbw_GBps)) best = &r;
  }
  // nccl-tests prints bandwidths with two decimals: below 0.1 GB/s the ratio says nothing
  if (best == nullptr || best->algbw_GBps < 0.1) return sched::Collective::Allreduce;
  const double ratio = best->busbw_GBps / best->algbw_GBps;
  if (ratio < 0.995) {
    return st.redop == "none" ? sched::Collective::Allgather : sched::Collective::ReduceScatter;
  }
  int root = -1;
  if (ratio < 1.005 && st.redop == "none" && to_number(st.root, root) && root >= 0) {
    return sched::Collective::Broadcast;
  }
  return sched::Collective::Allreduce;
}

Expected<void> finish(State& st, const NcclTestsParseOptions& opt) {
  if (st.m.rows.empty()) {
    return fail(Errc::ParseError,
                opt.origin + ": no result rows found (is this nccl-tests output?)");
  }
  st.m.collective = opt.collective.value_or(st.collective.value_or(collective_from_table(st)));
  if (!st.hosts.empty()) st.m.nodes = static_cast<int>(st.hosts.size());
  if (opt.ranks) {
    st.m.ranks = *opt.ranks;
  } else if (!st.ranks_seen.empty()) {
    st.m.ranks = static_cast<int>(st.ranks_seen.size());
  } else if (auto n = ranks_from_ratio(st.m)) {
    st.m.ranks = *n;
  } else {
    return fail(Errc::ParseError, opt.origin +
                                      ": cannot tell the number of ranks (no Rank lines, "
                                      "no usable busbw/algbw); give it explicitly");
  }
  if (st.m.nodes && st.m.ranks % *st.m.nodes == 0) st.m.gpus_per_node = st.m.ranks / *st.m.nodes;
  return check_measurement_header(st.m).context(opt.origin);
}

}  // namespace

Expected<Measurement> parse_nccl_tests(std::string_view text, const NcclTestsParseOptions& opt) {
  State st;
  st.m.source = "nccl-tests";
  std::size_t line_no = 0, pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = strip_prefix(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (auto c = collective_from_text(line)) st.collective = c;
    read_version(line, st);
    const auto tok = split(line);
    if (tok.empty()) continue;
    Expected<void> read = {};
    if (tok[0].front() == '#') {
      if (auto c = read_comment(line.substr(line.find('#') + 1), st); !c) {
        read = fail(c.error().code, "line " + std::to_string(line_no) + ": " + c.error().message);
      }
    } else if (is_numeric(tok[0])) {  // else NCCL INFO lines, "...", banners
      read = read_row(tok, line_no, st);
    }
    if (!read) return Unexpected(Error(read.error().code, opt.origin + ":" + read.error().message));
  }
  TT_TRY_VOID(finish(st, opt));
  return std::move(st.m);
}

Expected<Measurement> load_nccl_tests_log(const std::string& path, NcclTestsParseOptions options) {
  TT_TRY(const std::string text, read_input_file(path, "nccl-tests log"));
  options.origin = path;
  return parse_nccl_tests(text, options);
}

}  // namespace topotune::rt
