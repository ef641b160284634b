#pragma once
// The NCCL model's held-out error by kind of cluster: data/error_bands.json (written by
// `python3 scripts/accuracy.py --bands data/error_bands.json`, scripts/error_bands.py),
// compiled into the binary. Each group is the median |busbw error| of the leave-one-out
// predictions of the calibration logs that share a collective, a NIC class (as the NCCL model
// classes it; "none" for one NCCL-level node), a node-count bucket, a message-size bucket and
// an NCCL release bucket (a group may leave any of them out: any). A collective is looked up
// from the most specific group to the coarsest (the file's `fallback` order) and takes the
// first with at least `min_entries` logs behind it; a NIC class no log ran on gets the
// collective's `wide` figure (its worst held-out log's median) and is flagged, so that the plan
// can warn that nothing measured this kind of cluster.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/nccl/nccl_version.h"
#include "core/expected.h"
#include "core/units.h"

namespace topotune::tune {

/// A cluster kind and collective to look a band up for; the bucket names are the file's.
struct BandKey {
  std::string collective = "all_reduce";
  /// "efa_srd", "efa_rdma", "infiniband", "tcp", "tcpx", "tcpxo", "none" (one node); "" = not
  /// known: only the collective's overall figure applies.
  std::string nic_class;
  std::string nodes = "1";       ///< nodes_bucket()
  std::string nccl = "unknown";  ///< release_bucket()
};

/// One band figure and where it came from.
struct BandFigure {
  double error = 0;  ///< expected |error| of a predicted time, a fraction (0.076 = 7.6 %)
  /// "efa_srd, 16-256 MiB: 8.2 % over 120 rows of 4 logs"
  std::string source;
  bool uncalibrated = false;  ///< no log of the key's NIC class: the wide figure
};

/// "1", "2", "3-8", ">8": NCCL-level nodes (scripts/error_bands.py nodes_bucket).
std::string nodes_bucket(int nodes);
/// "<1MiB", "1-16MiB", "16-256MiB", ">=256MiB": the collective's whole buffer.
std::string size_bucket(Bytes size);
/// "<2.12", "2.12-2.18", ">=2.19", or "unknown" when the plan assumes no release.
std::string release_bucket(const algo::NcclVersion& v);

/// data/error_bands.json, parsed (topotune.error_bands/1).
class ErrorBandTable {
 public:
  /// Parses a topotune.error_bands/1 document. Errors: bad JSON, a missing or ill-typed field.
  static Expected<ErrorBandTable> parse(const std::string& text);
  /// The table the build embedded (data/error_bands.json); a bad file is a build bug.
  static const ErrorBandTable& builtin();

  /// The band of one collective of `key`'s cluster kind, `size` bytes (nullopt: any size).
  BandFigure lookup(const BandKey& key, std::optional<Bytes> size) const;
  /// True when at least one log of `key`'s collective ran on its NIC class.
  bool has_logs_of(const BandKey& key) const;

 private:
  struct Group {
    std::map<std::string, std::string> dims;  ///< the keys it fixes; the others: any
    double median = 0;
    int rows = 0;
    int entries = 0;
  };
  struct Wide {
    double error = 0;
    std::string entry;
  };
  const Group* find(const std::map<std::string, std::string>& want) const;

  std::vector<Group> groups_;
  std::vector<std::vector<std::string>> fallback_;
  int min_entries_ = 2;
  std::map<std::string, Wide> wide_;  ///< by collective
};

}  // namespace topotune::tune
