#pragma once
// The calibration file (docs/calibration.md): what `topotune calibrate -o` writes and every
// `--calibration FILE` reads. The NCCL model's parameters on top of the built-in fit
// (data/nccl_model.json, compiled in), and optionally a "link_params" section for the
// topology's link classes. The NCCL side is algo::params_to_json/params_from_json, the link
// side link_calibration.h; this header joins them into the file and reads both sides back.

#include <string>
#include <vector>

#include "algorithms/nccl/nccl_params.h"
#include "calibration/link_calibration.h"
#include "core/expected.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {

/// The built-in fit, then the calibration file at `path` on top if `path` is not empty.
Expected<algo::NcclModelParams> load_nccl_model(const std::string& path);

/// `--calibration FILE` on the topology side (simulate, predict --algo, plan): maps the file's
/// physical parameters and its "link_params" section onto `spec` (apply_calibration). An empty
/// path applies the built-in fit's physical parameters to a cluster whose link classes still
/// hold the placement's defaults (nobody measured them), and changes nothing otherwise.
Expected<void> apply_calibration_file(const std::string& path, topo::ClusterSpec& spec);

/// apply_calibration_file on a file already read (`origin` names it in messages), for a
/// command that also embeds the text: a pipe or FIFO can be read only once.
Expected<void> apply_calibration_text(const std::string& text, const std::string& origin,
                                      topo::ClusterSpec& spec);

/// `calibrate --start FILE`, read once: its NCCL parameters on the built-in fit and its
/// "link_params" section, checked as a cluster file's section is (an invalid one is refused,
/// it was dropped unread), so that calibrate carries it into the file it writes.
Expected<LinkCalibration> load_start_calibration(const std::string& path);

/// The "link_params" section of a calibration fitted from `start`: the start's section with
/// the fitted one's classes and fields written over it (a JSON merge patch: what the new fit
/// determined wins, what it did not fit is kept). Either may be "" (none); "" if both are.
std::string merge_link_params(const std::string& start, const std::string& fitted);

/// The file's text: the parameters with `description`, then `link_params_json` (a JSON
/// object's text, as link_params_section writes it) as "link_params" unless it is empty.
std::string calibration_file_text(const algo::NcclModelParams& params,
                                  const std::string& description,
                                  const std::string& link_params_json = "");

/// The description calibrate stores when none is given: the runs it was fitted on (names
/// repaired to valid UTF-8, as file names are bytes), link-class runs marked as such.
std::string calibration_description(const std::vector<std::string>& nccl_runs,
                                    const std::vector<std::string>& link_runs);

}  // namespace topotune::tune
