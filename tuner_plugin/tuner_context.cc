#include "tuner_plugin/tuner_context.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace topotune::tuner_plugin {
namespace {

// Closes the descriptor on every path out of read_rules_file.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// What NCCL 2.21 can run, the only release that reads _v2 (later ones find _v3 or newer
// first): ncclTopoTuneModel in src/graph/tuning.cc at v2.21.5-1 gives broadcast and reduce
// Ring only, allgather and reduce-scatter Ring, NVLS and CollNetDirect, NVLS* Simple only;
// it has no PAT (added in v2.23.4-1). A v2 tuner sees no cost table, so this is all it knows.
bool v2_allows(int coll, int algo, int proto, bool collnet_support, bool nvls_support) {
  const bool collnet = algo == NCCL_ALGO_COLLNET_DIRECT || algo == NCCL_ALGO_COLLNET_CHAIN;
  const bool nvls = algo == NCCL_ALGO_NVLS || algo == NCCL_ALGO_NVLS_TREE;
  if (algo == NCCL_ALGO_PAT || (collnet && !collnet_support) || (nvls && !nvls_support)) {
    return false;
  }
  if (nvls && proto != NCCL_PROTO_SIMPLE) return false;
  if (coll == ncclFuncBroadcast || coll == ncclFuncReduce) return algo == NCCL_ALGO_RING;
  if (coll == ncclFuncAllGather || coll == ncclFuncReduceScatter) {
    return algo == NCCL_ALGO_RING || algo == NCCL_ALGO_NVLS || algo == NCCL_ALGO_COLLNET_DIRECT;
  }
  return true;
}

constexpr const char* kNotAllowed = "which NCCL does not allow here";

// The cheapest protocol NCCL allows for `algo` in a [num_algo][num_proto] table: the entry
// topoGetAlgoInfo (src/enqueue.cc at v2.30.7-1) would pick within that row, since it skips
// NCCL_ALGO_PROTO_IGNORE and takes the smallest cost >= 0 (the first on a tie). -1: none.
int cheapest_allowed_proto(const float* table, int algo, int num_proto) {
  int best = -1;
  for (int p = 0; p < num_proto; ++p) {
    const float cost = table[algo * num_proto + p];
    if (cost >= 0.0f && (best < 0 || cost < table[algo * num_proto + best])) best = p;
  }
  return best;
}

}  // namespace

std::string read_rules_file(const char* path, std::string& text) {
  text.clear();
  if (path == nullptr || *path == '\0') return "empty path";
  // O_NONBLOCK: opening a FIFO with no writer would otherwise hang NCCL's init.
  const Fd f{::open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (f.fd < 0) return errno_text("cannot open");
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) return errno_text("cannot stat");
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  if (static_cast<std::uint64_t>(st.st_size) > kMaxRulesFileBytes) {
    return "file is over " + std::to_string(kMaxRulesFileBytes) + " bytes";
  }
  // Read to one byte past the bound: the file may have grown since fstat.
  text.resize(kMaxRulesFileBytes + 1);
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(f.fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_text("cannot read");
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return {};
}

TunerContext::TunerContext(std::uint64_t nranks, std::uint64_t nnodes, ncclDebugLogger_t log)
    : nranks_(nranks), nnodes_(nnodes), log_(log) {
  const char* path = std::getenv(kRulesEnv);
  if (path == nullptr) {
    this->log(NCCL_LOG_INFO, std::string(kRulesEnv) + " is not set: NCCL's own choices");
    return;
  }
  std::string text;
  std::string why = read_rules_file(path, text);
  if (why.empty()) {
    RulesParse parsed = parse_rules(text);
    why = std::move(parsed.error);
    rules_ = std::move(parsed.rules);
  }
  if (!why.empty()) {
    rules_.clear();
    this->log(NCCL_LOG_WARN,
              std::string(kRulesEnv) + ": " + why + ": no rules, NCCL's own choices");
    return;
  }
  this->log(NCCL_LOG_INFO, "loaded " + std::to_string(rules_.size()) + " rules for " +
                               std::to_string(nnodes_) + " nodes, " + std::to_string(nranks_) +
                               " ranks");
}

void TunerContext::apply_to_cost_table(int coll, std::uint64_t nbytes, float* table, int num_algo,
                                       int num_proto, int* n_channels) {
  const Rule* rule = find_rule(rules_, coll, nbytes, nnodes_, nranks_);
  if (rule == nullptr || table == nullptr) return;
  if (rule->algo >= num_algo || rule->proto >= num_proto) {
    note_refused(*rule, kNotAllowed);
    return;
  }
  const int proto =
      rule->proto == kAnyProto ? cheapest_allowed_proto(table, rule->algo, num_proto) : rule->proto;
  if (proto < 0 ||
      table[rule->algo * num_proto + proto] == static_cast<float>(NCCL_ALGO_PROTO_IGNORE)) {
    note_refused(*rule, kNotAllowed);
    return;
  }
  table[rule->algo * num_proto + proto] = 0.0f;
  if (rule->channels > 0 && n_channels != nullptr) *n_channels = rule->channels;
}

void TunerContext::apply_pick(int coll, std::uint64_t nbytes, int collnet_support, int nvls_support,
                              int* algorithm, int* protocol, int* n_channels) {
  const Rule* rule = find_rule(rules_, coll, nbytes, nnodes_, nranks_);
  if (rule == nullptr || algorithm == nullptr || protocol == nullptr) return;
  if (rule->proto == kAnyProto) {
    // NCCL 2.21's topoGetAlgoInfo (src/enqueue.cc at v2.21.5-1) recomputes both algorithm and
    // protocol when either is NCCL_*_UNDEF, and NCCL >= 2.26's v2 adapter
    // (src/plugin/tuner/tuner_v2.cc) ignores a pick without a protocol: `any` cannot be said
    // through v2, so the whole choice, channels included, stays NCCL's.
    note_refused(*rule, "which the v2 tuner API (NCCL 2.21) cannot express");
    return;
  }
  if (!v2_allows(coll, rule->algo, rule->proto, collnet_support != 0, nvls_support != 0)) {
    note_refused(*rule, kNotAllowed);
    return;
  }
  *algorithm = rule->algo;
  *protocol = rule->proto;
  if (rule->channels > 0 && n_channels != nullptr) *n_channels = rule->channels;
}

void TunerContext::log(ncclDebugLogLevel level, const std::string& line) const {
  if (log_ == nullptr) return;
  log_(level, NCCL_TUNING, __FILE__, __LINE__, "TUNER/topotune: %s", line.c_str());
}

void TunerContext::note_refused(const Rule& rule, const char* why) {
  if (refused_logged_) return;
  refused_logged_ = true;
  log(NCCL_LOG_INFO, std::string("rule for ") + collective_name(rule.collective) + " asks " +
                         algo_name(rule.algo) + "/" + proto_name(rule.proto) + ", " + why +
                         ": NCCL's own choice kept");
}

}  // namespace topotune::tuner_plugin
