#pragma once
// How far a predicted step may be off, and so how large a gain must be before the plan
// recommends changing anything. The NCCL model's held-out error is measured, not assumed:
// `python3 scripts/accuracy.py` refits the model without each validation entry and predicts
// it, and writes the median |busbw error| of those predictions per kind of cluster (NIC
// class, nodes, message size, NCCL release) to data/error_bands.json (error_band_table.h; the
// script fails when that file no longer matches what it measures). A step's band is, for each
// of its buckets, the error of that bucket's size on the plan's kind of cluster times the
// bucket's collective time, summed: the most the step can move if each collective is off by
// its kind's held-out error. A change is advised only when its gain exceeds the bands of both
// steps it compares.

#include <optional>
#include <string>
#include <utility>

#include "algorithms/nccl/nccl_system.h"
#include "algorithms/nccl/nccl_version.h"
#include "algorithms/schedule/collective_spec.h"
#include "core/units.h"
#include "planning/error_band_table.h"
#include "planning/held_out_error.h"
#include "planning/tuner.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {

/// The error-band table's name for `c`'s group: "all_reduce", else "all_gather/reduce_scatter"
/// (the table pools the two: the same ring steps, too few logs apart).
std::string band_collective(sched::Collective c);

/// The bands of one cluster kind's allreduces: its key into the table.
class ClusterBands {
 public:
  /// No cluster kind: every collective gets the table's overall all_reduce figure.
  ClusterBands() = default;
  /// The kind of `spec` (its NCCL NIC class, or "none" on one node, and its node count) under
  /// the release `nccl` (unknown: the latest modeled). `table` must outlive this.
  ClusterBands(const topo::ClusterSpec& spec, const algo::NcclVersion& nccl,
               const ErrorBandTable& table = ErrorBandTable::builtin());
  /// The kind of one NCCL communicator (`system`: its NIC class, or "none" on one node, and
  /// its NCCL-level node count) for `collective`'s figures, under the release `nccl`.
  ClusterBands(const algo::NcclSystem& system, const algo::NcclVersion& nccl,
               sched::Collective collective,
               const ErrorBandTable& table = ErrorBandTable::builtin());
  /// A given key on `table` (tests).
  ClusterBands(BandKey key, const ErrorBandTable& table) : key_(std::move(key)), table_(&table) {}

  /// The same kind of cluster for `c`'s figures (band_collective).
  ClusterBands with_collective(sched::Collective c) const {
    ClusterBands b = *this;
    b.key_.collective = band_collective(c);
    return b;
  }
  /// The band of one collective of `size` bytes (nullopt: of no known size).
  BandFigure figure(std::optional<Bytes> size) const { return table_->lookup(key_, size); }
  /// True when no log ran on this kind's NIC class (every figure is the wide one).
  bool uncalibrated() const { return figure(std::nullopt).uncalibrated; }
  /// The plan's warning for an uncalibrated kind: "no calibration log of this kind of
  /// cluster: ...".
  std::string warning() const;
  const BandKey& key() const { return key_; }

 private:
  BandKey key_;
  const ErrorBandTable* table_ = &ErrorBandTable::builtin();
};

/// +- seconds on `c`'s predicted step: each bucket's collective time times its size's error on
/// `bands`' kind of cluster; collective time no bucket accounts for (a hand-made candidate)
/// takes the figure of no known size.
Seconds error_band(const Candidate& c, const ClusterBands& bands);

/// Where `c`'s band came from: the distinct groups of its buckets, "; "-separated, in the
/// order the buckets launch.
std::string band_source(const Candidate& c, const ClusterBands& bands);

/// True when `pick` is faster than `defaults` by more than both steps' error bands together
/// and by more than `margin` of the defaults' step.
inline bool beats_beyond_band(const Candidate& pick, const Candidate& defaults, double margin,
                              const ClusterBands& bands) {
  const double gain = defaults.step.step.value - pick.step.step.value;
  return gain > margin * defaults.step.step.value &&
         gain > error_band(pick, bands).value + error_band(defaults, bands).value;
}

}  // namespace topotune::tune
