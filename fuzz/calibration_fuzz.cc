// libFuzzer target: bytes -> a calibration file (`--calibration FILE`, `calibrate --start`):
// the NCCL model parameters on top of the defaults, then its link_params on a small cluster.
// Bad input must come back as an Error, never a throw, a NaN-producing value or a crash.

#include <cstddef>
#include <cstdint>
#include <string>

#include "algorithms/nccl/nccl_params.h"
#include "calibration/link_calibration.h"
#include "topology/cluster_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace topo = topotune::topo;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto& base = topotune::algo::default_params();
  auto c = topotune::tune::parse_link_calibration(text, "fuzz-calibration.json", base);
  if (!c) return 0;
  auto spec = topo::make_cluster_spec("p4d.24xlarge", 2, topo::Placement::Cluster);
  if (spec) (void)topotune::tune::apply_calibration(*c, *spec, "fuzz-calibration.json");
  return 0;
}
