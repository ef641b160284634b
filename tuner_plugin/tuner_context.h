#pragma once
// What one NCCL communicator's tuner holds: the rules read at init, the communicator's shape
// and NCCL's logger. exports.cc wraps it in every API version's C entry points; this class
// is C++ and never crosses the ABI. Nothing here fails a job: a rules file that cannot be
// used leaves no rules (NCCL's own choices) and one line through the logger.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tuner_plugin/nccl_abi.h"
#include "tuner_plugin/rules.h"

namespace topotune::tuner_plugin {

/// The environment variable naming the rules file (docs/tuner-plugin.md).
inline constexpr const char* kRulesEnv = "NCCL_TUNER_TOPOTUNE_RULES";

/// Reads a rules file without blocking on a FIFO or reading a device: only a regular file
/// of at most kMaxRulesFileBytes. Returns the reason it cannot, empty on success.
[[nodiscard]] std::string read_rules_file(const char* path, std::string& text);

/// One communicator's tuner state.
class TunerContext {
 public:
  /// Loads the rules named by $NCCL_TUNER_TOPOTUNE_RULES (none when unset or unusable).
  TunerContext(std::uint64_t nranks, std::uint64_t nnodes, ncclDebugLogger_t log);

  /// API v3+: zeroes the first matching rule's entry of the [num_algo][num_proto] table
  /// unless it is NCCL_ALGO_PROTO_IGNORE, then sets *n_channels if the rule names a count.
  /// A rule with protocol `any` zeroes the cheapest entry of its algorithm's row that NCCL
  /// allows (cost >= 0, as NCCL's topoGetAlgoInfo reads the table), so NCCL keeps its own
  /// protocol choice for that algorithm; a row with no allowed entry changes nothing.
  void apply_to_cost_table(int coll, std::uint64_t nbytes, float* table, int num_algo,
                           int num_proto, int* n_channels);

  /// API v2 (read only by NCCL 2.21): NCCL gives no table, only whether CollNet and NVLS
  /// can run; the pick (and its channels) is made only when NCCL 2.21's tuning model would
  /// run that algorithm and protocol for the collective (v2_allows in the .cc). A rule with
  /// protocol `any` changes nothing: NCCL 2.21 recomputes algorithm and protocol both when
  /// either is left undefined, and a v2 tuner has no cost to pick a protocol by.
  void apply_pick(int coll, std::uint64_t nbytes, int collnet_support, int nvls_support,
                  int* algorithm, int* protocol, int* n_channels);

  [[nodiscard]] std::size_t rule_count() const { return rules_.size(); }

 private:
  void log(ncclDebugLogLevel level, const std::string& line) const;
  void note_refused(const Rule& rule, const char* why);

  std::vector<Rule> rules_;
  std::uint64_t nranks_;
  std::uint64_t nnodes_;
  ncclDebugLogger_t log_;
  bool refused_logged_ = false;  // one line per communicator, not one per collective call
};

}  // namespace topotune::tuner_plugin
